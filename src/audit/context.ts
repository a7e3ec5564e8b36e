import type { FastifyRequest } from 'fastify';
import type { ActorType } from './actions.js';

/** Who did it: a person (`user`, labelled with their email), a key (labelled `svc_org_…abcd`), the CLI or the service itself. Never a secret. */
export interface AuditActor {
  type: ActorType;
  id: string | null;
  label: string | null;
}

/**
 * Who acted and from where: what a route hands the service it calls (built from the request by the auth of its
 * API: `orgAuth.auditContext(request)`, `developerAuth.auditContext(request)`, `requestAuditContext` for the account
 * routes), or what the CLI hands it (`CLI_AUDIT`). Passed explicitly, never held in a module.
 */
export interface AuditContext {
  actor: AuditActor;
  ip: string | null;
  userAgent: string | null;
}

/** From where: what an account route knows before the service knows who (sign-in, reset, invitations). */
export type RequestOrigin = Omit<AuditContext, 'actor'>;

/** A user agent is kept to its first 300 characters. */
const USER_AGENT_MAX = 300;

/** The request's client address (`request.ip`, which honours TRUST_PROXY) and user agent. */
export function requestOrigin(request: FastifyRequest): RequestOrigin {
  const agent = request.headers['user-agent'];
  return { ip: request.ip || null, userAgent: typeof agent === 'string' && agent !== '' ? agent.slice(0, USER_AGENT_MAX) : null };
}

/** The request's origin with the actor its auth found. */
export function requestAuditContext(request: FastifyRequest, actor: AuditActor): AuditContext {
  return { actor, ...requestOrigin(request) };
}

/** A person acting for themselves, named by their email. */
export const userActor = (user: { id: string; email: string }): AuditActor => ({ type: 'user', id: user.id, label: user.email });

/** What a `switchboard` command does is recorded as the CLI's: no person, no address. */
export const CLI_AUDIT: AuditContext = { actor: { type: 'cli', id: null, label: 'switchboard CLI' }, ip: null, userAgent: null };

/** What the service does by itself (e.g. a scheduled job). */
export const SYSTEM_AUDIT: AuditContext = { actor: { type: 'system', id: null, label: null }, ip: null, userAgent: null };

/** A key as the log names it: its prefix and last four characters, never more of it. */
export const keyLabel = (prefix: string, lastFour: string): string => `${prefix}…${lastFour}`;
