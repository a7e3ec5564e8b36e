import type { FastifyBaseLogger } from 'fastify';
import { normalizeEmail } from '../lib/normalize.js';
import { isUniqueViolation } from '../db/query-helpers.js';
import type { UsersTable } from '../db/tables.js';
import type { ExpiryPurge } from '../db/expiry-purger.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError } from '../http/errors.js';
import { rateLimitExceeded, type RateLimiter, type RateLimitRule } from '../http/rate-limit.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { hashSecret, verifyPassword } from '../lib/hashing.js';
import { newId, newSecret, randomBase62 } from '../lib/ids.js';
import type { OrgPrincipal } from '../orgs/auth.js';
import type { OrgsService } from '../orgs/service.js';
import type { BackgroundQueue } from '../lib/background-queue.js';
import type { Mailer } from '../lib/mailer.js';
import type { PasswordPolicy } from '../lib/passwords.js';
import { refuseAtOrgLimit, type LimitLock } from '../http/tenant-limits.js';
import { ALREADY_A_DEVELOPER, insertDeveloperAccount } from '../developers/service.js';
import type { DevelopersRepo } from '../developers/repo.js';
import type { OperatorsRepo } from './repo.js';
import type { CreatedInvitation, Invitation, Member, SessionInfo } from './schema.js';
import type { IssuedSession, Session, SessionsService } from '../sessions/sessions-service.js';
import { CLI_AUDIT, userActor, type AuditContext, type RequestOrigin } from '../audit/context.js';
import type { AuditLog } from '../audit/service.js';
import type { AuditRepo } from '../audit/repo.js';

const INVITATION_MS = 7 * 24 * 60 * 60 * 1000;
const RESET_MS = 60 * 60 * 1000;

/**
 * Per account (the email, hashed): a password guesser is slowed to 10 tries in any 15 minutes, whatever its
 * addresses. A sliding window (http/rate-limit.ts): with a fixed one, 10 tries just before its edge and 10
 * just after made 20 in a few seconds.
 */
export const SIGN_IN_PER_ACCOUNT: RateLimitRule = { name: 'signin-account', limit: 10, windowMs: 15 * 60_000, message: 'Too many sign-in attempts for this account.', sliding: true };
/** Per account: reset emails are not sent more than 5 times in any hour. */
export const RESET_PER_ACCOUNT: RateLimitRule = { name: 'reset-account', limit: 5, windowMs: 60 * 60_000, message: 'Too many password-reset requests for this email.', sliding: true };

/** A password for the CLI to print: three groups of six base62 characters (~107 bits). */
export function generatePassword(): string {
  return [randomBase62(6), randomBase62(6), randomBase62(6)].join('-');
}

/** The one answer for an unknown email and a wrong password, word for word. */
const BAD_CREDENTIALS = 'The email or password is not right.';

/** A session just issued, with what the console shows: the route sets the cookie from `issued`. */
export interface SignedIn {
  info: SessionInfo;
  issued: IssuedSession;
}

export interface OperatorsDeps {
  repo: OperatorsRepo;
  /** Developer accounts (developers/repo.ts): a person may have one (docs/accounts.md). */
  developers: DevelopersRepo;
  /** `orgs` locks the org's row for the pendingInvitations limit (http/tenant-limits.ts). */
  transact: Transact<{ operators: OperatorsRepo; developers: DevelopersRepo; orgs: LimitLock; audit: AuditRepo }>;
  /** Sign-ins (and failed ones), password changes and resets, sessions ended, members invited, joined, removed or given a role. */
  audit: AuditLog;
  orgs: Pick<OrgsService, 'signUpOrganization'>;
  sessions: SessionsService;
  passwords: PasswordPolicy;
  limiter: RateLimiter;
  /** Sends invitation and reset emails; undefined without SMTP_URL (links are then shown or logged). */
  mailer: Mailer | undefined;
  /** Work done after the answer (password-reset lookups, writes and emails): drained on the app's close. */
  background: BackgroundQueue;
  clock: Clock;
  publicUrl: string;
  /** Links are logged (info) only in development, never in production. */
  logLinks: boolean;
  log: FastifyBaseLogger;
}

/**
 * Operator accounts of the console: sign-up (an org with its owner), sign-in and out, password
 * change and reset, invitations (single use, 7 days) and members.
 */
export function createOperatorsService(deps: OperatorsDeps) {
  const { repo, developers, transact, orgs, sessions, passwords, limiter, mailer, background, clock, publicUrl, log, audit } = deps;

  /** An action of a person on their own account: in their organization's log and their developer account's. */
  async function recordOwn(from: RequestOrigin, person: Pick<UsersTable, 'id' | 'email' | 'org_id'>, action: 'auth.signin' | 'auth.signin_failed' | 'auth.signout_all' | 'auth.password_changed' | 'auth.password_reset', developerId?: string | null): Promise<void> {
    const developer = developerId === undefined ? ((await developers.findDeveloperByUserId(person.id))?.id ?? null) : developerId;
    await audit.record({ actor: userActor(person), ...from }, { action, orgId: person.org_id, developerId: developer, target: person.id });
  }
  // A hash to check a password against when the email is unknown, so both cost one scrypt.
  let decoy: Promise<string> | undefined;
  const decoyHash = () => (decoy ??= passwords.hash('not a password anyone has: switchboard decoy'));

  async function limit(rule: RateLimitRule, key: string): Promise<void> {
    const decision = await limiter.check(rule, key);
    if (!decision.allowed) throw rateLimitExceeded(rule, decision);
  }

  function email(raw: string, field = 'email'): string {
    const normalized = normalizeEmail(raw);
    if (!normalized.ok) throw new AppError('VALIDATION_ERROR', normalized.message, { field });
    return normalized.value;
  }

  /** The password rules (lib/passwords.ts): VALIDATION_ERROR on `field` saying why a password is refused. */
  function checkPassword(password: string, field: string): void {
    const refusal = passwords.refusal(password);
    if (refusal !== undefined) throw new AppError('VALIDATION_ERROR', refusal, { field });
  }

  const emailTaken = () => new AppError('CONFLICT', 'There is already an account with this email. Sign in with it instead.', { field: 'email' });

  function personName(raw: string): string {
    const name = raw.trim();
    if (name === '' || name.length > 100) throw new AppError('VALIDATION_ERROR', 'Enter your name, 1 to 100 characters.', { field: 'name' });
    return name;
  }

  type Person = Pick<UsersTable, 'id' | 'org_id' | 'email' | 'name' | 'role'>;

  /** What the console shows of a person: their organization (or null) and developer account (or null; read when not given). */
  async function describe(person: Person, csrfToken: string, developer?: { id: string; name: string } | null): Promise<SessionInfo> {
    const [org, dev] = await Promise.all([
      person.org_id === null ? undefined : repo.findOrgName(person.org_id),
      developer === undefined ? developers.findDeveloperByUserId(person.id) : developer,
    ]);
    return {
      user: { id: person.id, email: person.email, name: person.name, role: person.role },
      organization: person.org_id === null ? null : { id: person.org_id, name: org?.name ?? '' },
      developer: dev ? { id: dev.id, name: dev.name, email: person.email } : null,
      csrfToken,
      publicUrl,
    };
  }

  async function signedIn(person: Person): Promise<SignedIn> {
    const issued = await sessions.issue(person);
    return { issued, info: await describe(person, issued.csrfToken) };
  }

  function link(path: string): string {
    return `${publicUrl}${path}`;
  }

  /**
   * With `organizationName`: an organization and its owner (and with `developer: true`, their developer
   * account too). Without it and with `developer: true`: a person without an organization and their
   * developer account (display name = `name`), in one unit of work. Signs in either way.
   */
  async function signUp(input: { email: string; password: string; name: string; organizationName?: string | undefined; developer?: boolean | undefined }): Promise<SignedIn> {
    const address = email(input.email);
    const name = personName(input.name);
    if (input.organizationName === undefined) {
      if (input.developer !== true) {
        throw new AppError('VALIDATION_ERROR', 'Enter an organization name to run a business, or send developer: true to sign up as a developer.', { field: 'organizationName' });
      }
      checkPassword(input.password, 'password');
      const person: UsersTable = { id: newId('usr'), org_id: null, role: null, email: address, name, password_hash: await passwords.hash(input.password), created_at: isoNow(clock) };
      try {
        await transact(async (repos) => {
          await repos.operators.insertUser(person);
          await insertDeveloperAccount(repos.developers, clock, person, name);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
      return signedIn(person);
    }
    const orgName = input.organizationName.trim();
    if (orgName === '' || orgName.length > 100) throw new AppError('VALIDATION_ERROR', 'Enter an organization name of 1 to 100 characters.', { field: 'organizationName' });
    checkPassword(input.password, 'password');
    const created = await orgs.signUpOrganization({ name: orgName, email: address, password: input.password, operatorName: name });
    const person: Person = { id: created.operator.id, org_id: created.org.id, email: created.operator.email, name: created.operator.name, role: 'owner' };
    if (input.developer === true) await insertDeveloperAccount(developers, clock, person, name);
    return signedIn(person);
  }

  /** `POST /api/auth/developer`: the signed-in person becomes a developer too (409 CONFLICT when they are one). */
  async function becomeDeveloper(session: Session, input: { name?: string | undefined }): Promise<SessionInfo> {
    const person: Person = { id: session.userId, org_id: session.orgId, email: session.email, name: session.name, role: session.role };
    if (session.developer) throw new AppError('CONFLICT', ALREADY_A_DEVELOPER);
    const developer = await insertDeveloperAccount(developers, clock, person, input.name ?? session.name);
    return describe(person, session.csrfToken, developer);
  }

  /**
   * A failed sign-in of a known account is recorded after the answer (the background queue), so a wrong password
   * and an unknown email still take the same time; an email no account has is not recorded (it belongs to no log).
   */
  async function signIn(input: { email: string; password: string }, from: RequestOrigin): Promise<SignedIn> {
    const normalized = normalizeEmail(input.email);
    // No account has a malformed email: nothing to learn from how fast that answer comes.
    if (!normalized.ok) throw new AppError('UNAUTHORIZED', BAD_CREDENTIALS);
    const address = normalized.value;
    await limit(SIGN_IN_PER_ACCOUNT, hashSecret(address));
    const user = await repo.findUserByEmail(address);
    // Unknown or not: one scrypt either way, so the time taken tells nothing.
    const matches = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash()));
    if (!user || !matches) {
      if (user) background.push('audit of a failed sign-in', () => recordOwn(from, user, 'auth.signin_failed'));
      throw new AppError('UNAUTHORIZED', BAD_CREDENTIALS);
    }
    const signed = await signedIn(user);
    await recordOwn(from, user, 'auth.signin', signed.info.developer?.id ?? null);
    return signed;
  }

  async function current(session: Session): Promise<SessionInfo> {
    return describe({ id: session.userId, org_id: session.orgId, email: session.email, name: session.name, role: session.role }, session.csrfToken, session.developer);
  }

  async function setPassword(userId: string, password: string): Promise<void> {
    await repo.updatePasswordHash(userId, await passwords.hash(password));
    await Promise.all([sessions.revokeAllOf(userId), repo.closePasswordResets(userId, isoNow(clock))]);
  }

  /** Every session of the user ends, this one too; the browser gets a fresh one. */
  async function changePassword(session: Session, input: { currentPassword: string; newPassword: string }, from: RequestOrigin): Promise<SignedIn> {
    const user = await repo.findUser(session.userId);
    if (!user) throw new AppError('UNAUTHORIZED', 'Your session has ended. Sign in again.');
    // A session left open must not become a way to guess the password: the sign-in budget of the account applies.
    await limit(SIGN_IN_PER_ACCOUNT, hashSecret(user.email));
    if (!(await verifyPassword(input.currentPassword, user.password_hash))) {
      throw new AppError('VALIDATION_ERROR', 'Your current password is not right.', { field: 'currentPassword' });
    }
    checkPassword(input.newPassword, 'newPassword');
    await setPassword(user.id, input.newPassword);
    await recordOwn(from, user, 'auth.password_changed', session.developer?.id ?? null);
    return signedIn(user);
  }

  /** `POST /api/auth/signout-all`: every session of the person ends, on every device, this one too. */
  async function signOutAll(session: Session, from: RequestOrigin): Promise<void> {
    await sessions.revokeAllOf(session.userId);
    await recordOwn(from, { id: session.userId, email: session.email, org_id: session.orgId }, 'auth.signout_all', session.developer?.id ?? null);
  }

  /**
   * Always the same answer, 202, and the same work before it whether or not the email has an account:
   * the address is checked and counted against its limit (keyed by its hash, known or not), and the
   * rest — the lookup, the reset row, the email — is handed to the background queue and runs after
   * the answer. Why not have the unknown case do the same writes instead: a reset row needs a user
   * (the foreign key), and an email to nobody cannot be sent, so "the same writes" would be a pretence
   * that costs a write per probe and still differs in what it sends. Off the path, nothing the answer
   * waits for depends on the account: no query, no hashing, no log line (issue 18: a known email's
   * answer took 0.6–0.9 ms longer; reset-timing.test.ts measures both). A failed job is logged by the queue.
   */
  async function requestPasswordReset(input: { email: string }): Promise<void> {
    const address = email(input.email);
    await limit(RESET_PER_ACCOUNT, hashSecret(address));
    background.push('password reset', () => sendResetLink(address));
  }

  /** The background half of a reset request: for a known address, a link valid 1 hour, emailed (or in development logged). */
  async function sendResetLink(address: string): Promise<void> {
    const user = await repo.findUserByEmail(address);
    if (!user) return;
    const token = newSecret('svc_rst');
    const now = clock.now();
    await repo.insertPasswordReset({ token_hash: hashSecret(token), user_id: user.id, created_at: now.toISOString(), expires_at: new Date(now.getTime() + RESET_MS).toISOString(), used_at: null });
    const url = link(`/app/reset-password/${token}`);
    if (mailer) {
      const text = `Hello ${user.name},\n\nSomeone (we hope you) asked to reset the password of your Switchboard account. Choose a new one here:\n\n${url}\n\nThe link works once, for one hour. If you did not ask, ignore this email: your password stays as it is.\n\nSwitchboard\n`;
      // A failure is logged by the queue ("password reset failed …"); the person can ask again.
      await mailer.send({ to: user.email, subject: 'Reset your Switchboard password', text });
    } else if (deps.logLinks) {
      log.info({ link: url }, 'Password reset link (no SMTP_URL: not emailed)');
    } else {
      log.warn('Password reset requested, but SMTP_URL is not set: no email was sent');
    }
  }

  async function confirmPasswordReset(input: { token: string; password: string }, from: RequestOrigin): Promise<SignedIn> {
    checkPassword(input.password, 'password');
    const userId = input.token.startsWith('svc_rst_') ? await repo.usePasswordReset(hashSecret(input.token), isoNow(clock)) : undefined;
    const user = userId === undefined ? undefined : await repo.findUser(userId);
    if (!user) throw new AppError('NOT_FOUND', 'This reset link is not valid: it was used already or is more than an hour old. Ask for a new one.', { field: 'token' });
    await setPassword(user.id, input.password);
    await recordOwn(from, user, 'auth.password_reset');
    return signedIn(user);
  }

  // ── Invitations ──

  async function openInvitation(token: string) {
    if (!token.startsWith('svc_inv_')) return undefined;
    const row = await repo.findInvitationByHash(hashSecret(token));
    if (!row || row.accepted_at !== null || row.revoked_at !== null || Date.parse(row.expires_at) <= clock.now().getTime()) return undefined;
    return row;
  }

  const invitationGone = () => new AppError('NOT_FOUND', 'This invitation is not valid: it was used, revoked, or is more than 7 days old. Ask for a new one.');

  async function previewInvitation(token: string) {
    const row = await openInvitation(token);
    if (!row) throw invitationGone();
    const org = await repo.findOrgName(row.org_id);
    return { email: row.email, organization: { name: org?.name ?? '' }, expiresAt: row.expires_at };
  }

  async function acceptInvitation(token: string, input: { name: string; password: string }, from: RequestOrigin): Promise<SignedIn> {
    const name = personName(input.name);
    checkPassword(input.password, 'password');
    const row = await openInvitation(token);
    if (!row) throw invitationGone();
    if (await repo.findUserByEmail(row.email)) throw emailTaken();
    const passwordHash = await passwords.hash(input.password);
    const now = isoNow(clock);
    const user: UsersTable = { id: newId('usr'), org_id: row.org_id, email: row.email, name, password_hash: passwordHash, role: 'member', created_at: now };
    try {
      await transact(async (repos) => {
        if (!(await repos.operators.acceptInvitation(row.id, now))) throw invitationGone();
        await repos.operators.insertUser(user);
        await audit.record({ actor: userActor(user), ...from }, { action: 'member.joined', orgId: user.org_id, target: user.id, details: { invitationId: row.id, role: 'member' } }, repos);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw emailTaken();
      throw error;
    }
    return signedIn(user);
  }

  function presentInvitation(row: { id: string; email: string; expires_at: string; created_at: string }): Invitation {
    return { id: row.id, email: row.email, expiresAt: row.expires_at, createdAt: row.created_at };
  }

  /**
   * A new link for the email (an open one for it is revoked first, so it frees its place under the limit of pending
   * invitations). Emailed with SMTP; otherwise the answer holds the link.
   */
  async function invite(principal: OrgPrincipal, input: { email: string }, context: AuditContext): Promise<CreatedInvitation> {
    const address = email(input.email);
    if (await repo.findUserByEmail(address)) {
      throw new AppError('CONFLICT', 'Someone with this email already has an account. Each person belongs to one organization.', { field: 'email' });
    }
    const now = clock.now();
    const token = newSecret('svc_inv');
    const row = {
      id: newId('inv'),
      org_id: principal.orgId,
      email: address,
      token_hash: hashSecret(token),
      invited_by: principal.actor.id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_MS).toISOString(),
      accepted_at: null,
      revoked_at: null,
    };
    await transact(async (repos) => {
      const { operators } = repos;
      for (const open of await operators.listPendingInvitations(principal.orgId, row.created_at)) {
        if (open.email === address) await operators.revokeInvitation(open.id, row.created_at);
      }
      await refuseAtOrgLimit(repos, principal.orgId, 'pendingInvitations', () => operators.countPendingInvitations(principal.orgId, row.created_at));
      await operators.insertInvitation(row);
      await audit.record(context, { action: 'member.invited', orgId: principal.orgId, target: row.id }, repos);
    });
    const url = link(`/app/invitations/${token}`);
    const [org, inviter] = await Promise.all([repo.findOrgName(principal.orgId), principal.actor.type === 'user' ? repo.findUser(principal.actor.id) : undefined]);
    if (!mailer) {
      if (deps.logLinks) log.info({ link: url }, 'Invitation link (no SMTP_URL: not emailed)');
      return { ...presentInvitation(row), url };
    }
    const who = inviter ? `${inviter.name} invites you` : 'You are invited';
    try {
      await mailer.send({
        to: address,
        subject: `Join ${org?.name ?? 'your team'} on Switchboard`,
        text: `Hello,\n\n${who} to join ${org?.name ?? 'their organization'} on Switchboard, where the team manages its forms and leads. Accept here:\n\n${url}\n\nThe link works once and for 7 days. If you were not expecting it, you can ignore this email.\n\nSwitchboard\n`,
      });
    } catch (error) {
      await repo.deleteInvitation(row.id);
      log.error({ err: error }, 'invitation email could not be sent');
      throw new AppError('SERVICE_UNAVAILABLE', 'The invitation email could not be sent. Nothing was saved: try again in a moment.');
    }
    return presentInvitation(row);
  }

  async function listInvitations(orgId: string): Promise<Invitation[]> {
    return (await repo.listPendingInvitations(orgId, isoNow(clock))).map(presentInvitation);
  }

  async function revokeInvitation(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    const row = await repo.findInvitation(orgId, id);
    if (!row) throw new AppError('NOT_FOUND', 'Your organization has no invitation with this id.');
    await repo.revokeInvitation(id, isoNow(clock));
    return { id, deleted: true };
  }

  // ── Members ──

  async function listMembers(orgId: string): Promise<Member[]> {
    // A member of an organization always has a role: it is null only for a person without one.
    return (await repo.listOrgUsers(orgId)).map((u) => ({ id: u.id, email: u.email, name: u.name, role: u.role ?? 'member', createdAt: u.created_at }));
  }

  async function removeMember(orgId: string, id: string, context: AuditContext): Promise<{ id: string; deleted: true }> {
    const user = await repo.findOrgUser(orgId, id);
    if (!user) throw new AppError('NOT_FOUND', 'No member of your organization has this id.');
    if (user.role === 'owner' && (await repo.countOwners(orgId)) <= 1) {
      throw new AppError('CONFLICT', 'This is the organization\'s last owner: an organization always keeps one.');
    }
    await sessions.revokeAllOf(user.id);
    // A member who is also a developer keeps their developer account (and their tools): they stay a
    // person, without an organization. Anyone else is deleted.
    await transact(async (repos) => {
      if (await repos.developers.findDeveloperByUserId(user.id)) await repos.operators.leaveOrganization(orgId, id);
      else await repos.operators.deleteUser(orgId, id);
      await audit.record(context, { action: 'member.removed', orgId, target: id, details: { role: user.role ?? 'member' } }, repos);
    });
    return { id, deleted: true };
  }

  /** `PATCH /api/org/members/{id}`: a member becomes an owner or an owner a member; the last owner stays one (409). */
  async function changeRole(orgId: string, id: string, changes: { role?: 'owner' | 'member' | undefined }, context: AuditContext): Promise<Member> {
    const user = await repo.findOrgUser(orgId, id);
    if (!user) throw new AppError('NOT_FOUND', 'No member of your organization has this id.');
    const before = user.role ?? 'member';
    // The body schema requires the one field there is (http/changes.ts).
    const role = changes.role ?? before;
    if (before !== role) {
      await transact(async (repos) => {
        if (before === 'owner' && (await repos.operators.countOwners(orgId)) <= 1) {
          throw new AppError('CONFLICT', 'This is the organization\'s last owner: an organization always keeps one. Make someone else an owner first.');
        }
        await repos.operators.setRole(orgId, id, role);
        await audit.record(context, { action: 'member.role_changed', orgId, target: id, details: { from: before, to: role } }, repos);
      });
    }
    return { id: user.id, email: user.email, name: user.name, role, createdAt: user.created_at };
  }

  /**
   * The CLI's `user reset-password`, for an operator locked out without email: sets the given
   * password, or a generated one, and ends every session of the user.
   */
  async function resetPasswordByEmail(rawEmail: string, password?: string): Promise<{ userId: string; email: string; password: string; generated: boolean }> {
    const address = email(rawEmail);
    const user = await repo.findUserByEmail(address);
    if (!user) throw new AppError('NOT_FOUND', `No user has the email ${address}.`, { field: 'email' });
    const chosen = password ?? generatePassword();
    checkPassword(chosen, 'password');
    await setPassword(user.id, chosen);
    await recordOwnAs(CLI_AUDIT, user);
    return { userId: user.id, email: user.email, password: chosen, generated: password === undefined };
  }

  /** A password the CLI reset: the CLI's entry, on the person's account. */
  async function recordOwnAs(context: AuditContext, user: UsersTable): Promise<void> {
    const developer = await developers.findDeveloperByUserId(user.id);
    await audit.record(context, { action: 'auth.password_reset', orgId: user.org_id, developerId: developer?.id ?? null, target: user.id, details: { by: 'cli' } });
  }

  return { resetPasswordByEmail, signUp, becomeDeveloper, signIn, current, changePassword, signOutAll, requestPasswordReset, confirmPasswordReset, previewInvitation, acceptInvitation, invite, listInvitations, revokeInvitation, listMembers, removeMember, changeRole };
}

export type OperatorsService = ReturnType<typeof createOperatorsService>;

/** Expired invitations and reset tokens: purged in the background (db/expiry-purger.ts). */
export function expiredOperatorRows(repo: OperatorsRepo): ExpiryPurge[] {
  return [
    { name: 'invitations', purgeBatch: (now, limit) => repo.deleteExpiredInvitations(now.toISOString(), limit) },
    { name: 'password_resets', purgeBatch: (now, limit) => repo.deleteExpiredPasswordResets(now.toISOString(), limit) },
  ];
}
