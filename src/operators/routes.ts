import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, onRequestAsyncHookHandler } from 'fastify';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { AppError } from '../http/errors.js';
import { addJsonBodyParser } from '../http/json-body.js';
import { RateLimitedResponse, type RateLimiter, type RateLimitRule } from '../http/rate-limit.js';
import { createRequestSlot } from '../http/request-slot.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { Deleted } from '../orgs/schema.js';
import type { OperatorsService, SignedIn } from './operators-service.js';
import {
  BecomeDeveloperBody, CreatedInvitation, InvitationAcceptBody, InvitationCreateBody, InvitationIdParams, InvitationList, InvitationPreview, InvitationTokenParams, Member, MemberIdParams, MemberList, MemberRoleBody,
  MaybeSessionInfo, PasswordChangeBody, PasswordResetConfirmBody, PasswordResetRequestBody, ResetRequested, SessionInfo, SignedOut, SignInBody, SignUpBody,
} from './schema.js';
import type { Session, SessionsService } from '../sessions/sessions-service.js';
import { requestOrigin } from '../audit/context.js';

/** Account bodies are a few short strings. */
const AUTH_BODY_LIMIT = 8 * 1024;
const MINUTES_15 = 15 * 60_000;
/**
 * Per client address, in any 15 minutes (sliding windows: no burst across a window's edge); the per-account
 * limits are in operators-service.ts. `token`: the endpoints that take a reset or invitation token.
 */
export const PER_IP: Record<'signin' | 'signup' | 'reset' | 'token', RateLimitRule> = {
  signin: { name: 'signin-ip', limit: 30, windowMs: MINUTES_15, message: 'Too many sign-in attempts from your network.', sliding: true },
  signup: { name: 'signup-ip', limit: 20, windowMs: MINUTES_15, message: 'Too many sign-ups from your network.', sliding: true },
  reset: { name: 'reset-ip', limit: 10, windowMs: MINUTES_15, message: 'Too many password-reset requests from your network.', sliding: true },
  token: { name: 'account-token-ip', limit: 30, windowMs: MINUTES_15, message: 'Too many attempts from your network.', sliding: true },
};

const accountsRoute = { tags: ['Accounts'], security: [] };
const sessionRoute = { tags: ['Accounts'], security: [{ consoleSession: [] }] };

/**
 * `/api/auth/*` (the console's accounts) and `/api/org/members`, `/api/org/invitations` (owners only).
 * Sign-up, sign-in, reset and invitation acceptance check the Origin (no session yet); session
 * routes check the CSRF token on changes, like `/api/org/*` does.
 */
export function registerAccountRoutes(app: App, deps: { operators: OperatorsService; sessions: SessionsService; limiter: RateLimiter; orgAuth: OrgAuth }): void {
  const { operators, sessions, limiter, orgAuth } = deps;
  const slot = createRequestSlot<Session>('console session');

  const requireSession: onRequestAsyncHookHandler = async (request) => {
    const session = await sessions.fromRequest(request);
    if (!session) throw new AppError('UNAUTHORIZED', 'You are not signed in, or your session has ended. Sign in again.');
    sessions.checkCsrf(request, session);
    slot.set(request, session);
  };
  const sameOrigin: onRequestAsyncHookHandler = async (request) => sessions.checkOrigin(request);
  const perIp = (rule: RateLimitRule) => limiter.hook(rule, (request) => request.ip);

  function signIn(reply: FastifyReply, signed: SignedIn, status: 200 | 201) {
    sessions.setCookie(reply, signed.issued);
    reply.header('Cache-Control', 'no-store');
    return reply.code(status).send(ok(signed.info));
  }

  app.register(async (plugin) => {
    const r = plugin.withTypeProvider<TypeBoxTypeProvider>();
    r.removeAllContentTypeParsers();
    addJsonBodyParser(r, { allowEmpty: true });

    r.post('/api/auth/signup', {
      bodyLimit: AUTH_BODY_LIMIT,
      onRequest: [sameOrigin, perIp(PER_IP.signup)],
      schema: {
        ...accountsRoute, operationId: 'signUp', summary: 'Sign up',
        description:
          'Creates an organization (with the default pipeline) and its first user, its owner, and signs in: the session cookie `svc_session` is set. ' +
          'With `developer: true` and no `organizationName`: a person without an organization and their developer account (display name = `name`); with both, an organization and a developer account. ' +
          '400 VALIDATION_ERROR for a short or common password, or for neither an organization name nor `developer: true`; 409 CONFLICT when the email has an account; 403 FORBIDDEN from another site.',
        body: SignUpBody, response: { 201: Envelope(SessionInfo), ...errorResponses(400, 403, 409, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => signIn(reply, await operators.signUp(request.body), 201));

    r.post('/api/auth/signin', {
      bodyLimit: AUTH_BODY_LIMIT,
      onRequest: [sameOrigin, perIp(PER_IP.signin)],
      schema: {
        ...accountsRoute, operationId: 'signIn', summary: 'Sign in',
        description: 'Checks the email and password and sets the session cookie. An unknown email and a wrong password get the same 401 UNAUTHORIZED. Limited per account and per network: 429 RATE_LIMIT_EXCEEDED with Retry-After.',
        body: SignInBody, response: { 200: Envelope(SessionInfo), ...errorResponses(400, 401, 403, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => signIn(reply, await operators.signIn(request.body, requestOrigin(request)), 200));

    // Signed out is an answer here, not an error: the console asks on every first load, and a 401
    // would be reported by the browser as a failed request. Every other session route keeps its 401.
    r.get('/api/auth/session', {
      schema: {
        tags: ['Accounts'], security: [{ consoleSession: [] }, {}], operationId: 'getSession', summary: 'Get the session',
        description:
          'Who is signed in, their organization (null for a developer without one), their developer account (null when not a developer), and the CSRF token to send as X-CSRF-Token; ' +
          '`data` is null when nobody is signed in (no cookie, or a session that ended), still with 200.',
        response: { 200: Envelope(MaybeSessionInfo) },
      },
    }, async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const session = await sessions.fromRequest(request);
      return ok(session ? await operators.current(session) : null);
    });

    r.post('/api/auth/signout', {
      onRequest: requireSession,
      schema: { ...sessionRoute, operationId: 'signOut', summary: 'Sign out', description: 'Ends the session on the server and clears the cookie. Needs X-CSRF-Token.', response: { 200: Envelope(SignedOut), ...errorResponses(401, 403) } },
    }, async (request, reply) => {
      await sessions.revoke(slot.get(request).id);
      sessions.clearCookie(reply);
      return ok({ signedOut: true as const });
    });

    r.post('/api/auth/signout-all', {
      onRequest: requireSession,
      schema: { ...sessionRoute, operationId: 'signOutEverywhere', summary: 'Sign out everywhere', description: 'Ends every session of the signed-in person, on every device, this one too, and clears the cookie. Needs X-CSRF-Token.', response: { 200: Envelope(SignedOut), ...errorResponses(401, 403) } },
    }, async (request, reply) => {
      await operators.signOutAll(slot.get(request), requestOrigin(request));
      sessions.clearCookie(reply);
      return ok({ signedOut: true as const });
    });

    r.post('/api/auth/password', {
      bodyLimit: AUTH_BODY_LIMIT,
      onRequest: requireSession,
      schema: {
        ...sessionRoute, operationId: 'changePassword', summary: 'Change your password',
        description: 'Needs the current password and X-CSRF-Token; tries count against the sign-in limit of the account (429). Every session of the user ends, on every device; this browser gets a new one (new cookie and CSRF token).',
        body: PasswordChangeBody, response: { 200: Envelope(SessionInfo), ...errorResponses(400, 401, 403, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => signIn(reply, await operators.changePassword(slot.get(request), request.body, requestOrigin(request)), 200));

    r.post('/api/auth/developer', {
      bodyLimit: AUTH_BODY_LIMIT,
      onRequest: requireSession,
      // The body is optional (`{name}` only): none at all reads as `{}`.
      preValidation: async (request) => { request.body ??= {}; },
      schema: {
        ...sessionRoute, operationId: 'becomeDeveloper', summary: 'Become a developer',
        description:
          'Makes the signed-in person a developer too: a developer account with the display name `name` (the person\'s name when left out), signed in with the same email and password. ' +
          'The session then authorizes the Developer API (/api/dev/*). Needs X-CSRF-Token. 409 CONFLICT when the person is a developer already.',
        body: BecomeDeveloperBody, response: { 201: Envelope(SessionInfo), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    }, async (request, reply) => reply.code(201).send(ok(await operators.becomeDeveloper(slot.get(request), request.body))));

    r.post('/api/auth/password-reset', {
      bodyLimit: AUTH_BODY_LIMIT,
      onRequest: [sameOrigin, perIp(PER_IP.reset)],
      schema: {
        ...accountsRoute, operationId: 'requestPasswordReset', summary: 'Ask for a password-reset link',
        description: '202 whether or not the email has an account. A known one gets an email with a link valid one hour (`/app/reset-password/<token>`); without SMTP_URL the link is logged in development.',
        body: PasswordResetRequestBody, response: { 202: Envelope(ResetRequested), ...errorResponses(400, 403, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => {
      await operators.requestPasswordReset(request.body);
      return reply.code(202).send(ok({ requested: true as const }));
    });

    r.post('/api/auth/password-reset/confirm', {
      bodyLimit: AUTH_BODY_LIMIT,
      onRequest: [sameOrigin, perIp(PER_IP.token)],
      schema: {
        ...accountsRoute, operationId: 'confirmPasswordReset', summary: 'Set a new password with a reset link',
        description: 'The token works once, for one hour. Every session of the user ends; this browser is signed in. 404 NOT_FOUND for a used, expired or unknown token.',
        body: PasswordResetConfirmBody, response: { 200: Envelope(SessionInfo), ...errorResponses(400, 403, 404, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => signIn(reply, await operators.confirmPasswordReset(request.body, requestOrigin(request)), 200));

    r.get('/api/auth/invitations/:token', {
      onRequest: perIp(PER_IP.token),
      schema: {
        ...accountsRoute, operationId: 'getInvitation', summary: 'Read an invitation',
        description: 'The invited email and the organization, for the accept page. 404 NOT_FOUND when unknown, used, revoked or expired.',
        params: InvitationTokenParams, response: { 200: Envelope(InvitationPreview), ...errorResponses(404), 429: RateLimitedResponse },
      },
    }, async (request) => ok(await operators.previewInvitation(request.params.token)));

    r.post('/api/auth/invitations/:token/accept', {
      bodyLimit: AUTH_BODY_LIMIT,
      onRequest: [sameOrigin, perIp(PER_IP.token)],
      schema: {
        ...accountsRoute, operationId: 'acceptInvitation', summary: 'Accept an invitation',
        description: 'Creates the invited person\'s account as a `member` of the organization and signs in. The link works once. 404 NOT_FOUND when it is used, revoked or expired; 409 CONFLICT when the email has an account.',
        params: InvitationTokenParams, body: InvitationAcceptBody, response: { 201: Envelope(SessionInfo), ...errorResponses(400, 403, 404, 409, 413, 415), 429: RateLimitedResponse },
      },
    }, async (request, reply) => signIn(reply, await operators.acceptInvitation(request.params.token, request.body, requestOrigin(request)), 201));
  });

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    const owner = { onRequest: orgAuth.requireOwner('manage members and invitations') };
    const ownerOnly = 'Owners only: a member\'s session gets 403 FORBIDDEN.';
    r.get('/api/org/members', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'listMembers', summary: 'List members', description: `The organization's users with their roles, oldest first. ${ownerOnly}`, response: { 200: Envelope(MemberList), ...errorResponses(401, 403) } },
    }, async (request) => ok(await operators.listMembers(orgOf(request))));

    r.delete('/api/org/members/:id', {
      ...owner,
      schema: {
        ...operatorRoute, operationId: 'removeMember', summary: 'Remove a member',
        description: `Deletes the user and ends their sessions. 409 CONFLICT for the last owner. 404 NOT_FOUND. ${ownerOnly}`,
        params: MemberIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 403, 404, 409) },
      },
    }, async (request) => ok(await operators.removeMember(orgOf(request), request.params.id, orgAuth.auditContext(request))));

    r.patch('/api/org/members/:id', {
      ...owner,
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute, operationId: 'changeMemberRole', summary: 'Change a member\'s role',
        description: `\`owner\` or \`member\`. 409 CONFLICT for the last owner. 404 NOT_FOUND. ${ownerOnly}`,
        params: MemberIdParams, body: MemberRoleBody, response: { 200: Envelope(Member), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    }, async (request) => ok(await operators.changeRole(orgOf(request), request.params.id, request.body, orgAuth.auditContext(request))));

    r.post('/api/org/invitations', {
      ...owner,
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute, operationId: 'createInvitation', summary: 'Invite a member',
        description: `A single-use link valid 7 days, emailed when SMTP_URL is set; otherwise the answer's \`url\` is the link to give. A new invitation for the same email replaces the open one. 409 CONFLICT when the email has an account; 409 LIMIT_REACHED when the organization has as many pending invitations as its limit allows (GET /api/org/limits). ${ownerOnly}`,
        body: InvitationCreateBody, response: { 201: Envelope(CreatedInvitation), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    }, async (request, reply) => reply.code(201).send(ok(await operators.invite(orgAuth.principal(request), request.body, orgAuth.auditContext(request)))));

    r.get('/api/org/invitations', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'listInvitations', summary: 'List pending invitations', description: `Invitations neither accepted, revoked nor expired, newest first. ${ownerOnly}`, response: { 200: Envelope(InvitationList), ...errorResponses(401, 403) } },
    }, async (request) => ok(await operators.listInvitations(orgOf(request))));

    r.delete('/api/org/invitations/:id', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'revokeInvitation', summary: 'Revoke an invitation', description: `Its link stops working at once. 404 NOT_FOUND. ${ownerOnly}`, params: InvitationIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 403, 404) } },
    }, async (request) => ok(await operators.revokeInvitation(orgOf(request), request.params.id)));
  });
}
