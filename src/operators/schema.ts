import { ChangesBody } from '../http/changes.js';
import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../http/errors.js';
import { IdParam, withNotFound } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { MAX_PASSWORD_LENGTH } from '../lib/passwords.js';

const Email = Type.String({ minLength: 1, maxLength: 254, description: 'An email address; compared without regard to case.', examples: ['someone@example.com'] });
/** Length rules are the password policy's (lib/passwords.ts), so a short one gets its kind message, not a schema error. */
const Password = Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: 'At least 10 characters, not one of the most common passwords.', examples: ['violet kettle marathon'] });
const PersonName = Type.String({ maxLength: 100, description: 'How the person is named in the console, 1–100 characters.', examples: ['Ada Lovelace'] });

export const UserRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('member')], { description: '`owner` also manages members, invitations and API keys.' });

export const SessionUser = named('SessionUser', Type.Object({
  id: Type.String({ description: '`usr_…`' }),
  email: Type.String(),
  name: Type.String(),
  role: Type.Union([UserRoleSchema, Type.Null()], { description: 'The role in the organization; null for a person without one (a developer only).' }),
}));

export const SessionOrganization = named('SessionOrganization', Type.Object({ id: Type.String({ description: '`org_…`' }), name: Type.String() }));

export const SessionDeveloper = named('SessionDeveloper', Type.Object({
  id: Type.String({ description: '`dev_…`' }),
  name: Type.String({ description: 'The developer\'s display name, shown in the catalog.' }),
  email: Type.String({ description: 'The person\'s email: one sign-in for the console and the Developer API.' }),
}));

export const SessionInfo = named('SessionInfo', Type.Object({
  user: SessionUser,
  organization: Type.Union([SessionOrganization, Type.Null()], { description: 'The organization the person operates; null for a developer without one.' }),
  developer: Type.Union([SessionDeveloper, Type.Null()], { description: 'The person\'s developer account; null when they are not a developer (POST /api/auth/developer makes one).' }),
  csrfToken: Type.String({ description: 'Send it as X-CSRF-Token on every change made with the session cookie.' }),
  publicUrl: Type.String({ description: 'The address people reach this service at (PUBLIC_URL, no trailing slash): what the console writes into the snippets it gives (the chat widget\'s tag, MCP\'s URL, a token request), whatever address the console itself was opened at.' }),
}));
export type SessionInfo = Static<typeof SessionInfo>;
/** `GET /api/auth/session`: the session, or null when nobody is signed in. */
export const MaybeSessionInfo = named('MaybeSessionInfo', Type.Union([SessionInfo, Type.Null()]));

export const SignUpBody = named('SignUpBody', Type.Object({
  email: Email,
  password: Password,
  name: PersonName,
  organizationName: Type.Optional(Type.String({ maxLength: 100, description: 'The new organization\'s name, 1–100 characters. Leave it out to sign up as a developer only (with `developer: true`).', examples: ['Acme Plumbing'] })),
  developer: Type.Optional(Type.Boolean({ description: 'Also make a developer account (its display name is `name`): with no `organizationName`, the person is a developer only.' })),
}, { additionalProperties: false }));

export const BecomeDeveloperBody = named('BecomeDeveloperBody', Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100, description: 'The developer\'s display name in the catalog, 1–100 characters; the person\'s name when left out.', examples: ['Acme Tools'] })),
}, { additionalProperties: false }));

export const SignInBody = named('SignInBody', Type.Object({ email: Email, password: Type.String({ maxLength: 1000 }) }, { additionalProperties: false }));

export const PasswordChangeBody = named('PasswordChangeBody', Type.Object({
  currentPassword: Type.String({ maxLength: 1000 }),
  newPassword: Password,
}, { additionalProperties: false }));

export const PasswordResetRequestBody = named('PasswordResetRequestBody', Type.Object({ email: Email }, { additionalProperties: false }));
export const PasswordResetConfirmBody = named('PasswordResetConfirmBody', Type.Object({
  token: Type.String({ maxLength: 200, description: 'The token of the emailed link (`svc_rst_…`).' }),
  password: Password,
}, { additionalProperties: false }));

export const SignedOut = named('SignedOut', Type.Object({ signedOut: Type.Literal(true) }));
export const ResetRequested = named('ResetRequested', Type.Object({ requested: Type.Literal(true) }));

const invitationNotFound = () => new AppError('NOT_FOUND', 'This invitation is not valid: it was used, revoked, or is more than 7 days old. Ask for a new one.');
export const InvitationTokenParams = Type.Object({
  token: withNotFound(Type.String({ maxLength: 200, description: 'The token of the invitation link (`svc_inv_…`).', examples: ['svc_inv_3kTMd92nqLx0aPz8Vb1c3kTMd92nqLx0aPz8'] }), invitationNotFound),
});

export const InvitationPreview = named('InvitationPreview', Type.Object({
  email: Type.String(),
  organization: Type.Object({ name: Type.String() }),
  expiresAt: Type.String({ format: 'date-time' }),
}));

export const InvitationAcceptBody = named('InvitationAcceptBody', Type.Object({ name: PersonName, password: Password }, { additionalProperties: false }));

// ── Members and invitations (/api/org/*) ──

export const Member = named('Member', Type.Object({
  id: Type.String({ description: '`usr_…`' }),
  email: Type.String(),
  name: Type.String(),
  role: UserRoleSchema,
  createdAt: Type.String({ format: 'date-time' }),
}));
export type Member = Static<typeof Member>;
export const MemberList = named('MemberList', Type.Array(Member));

const memberNotFound = () => new AppError('NOT_FOUND', 'No member of your organization has this id.');
export const MemberIdParams = Type.Object({ id: IdParam('usr', memberNotFound, 'The member\'s user id (`usr_…`).') });

export const MemberRoleBody = named('MemberRoleBody', ChangesBody({ role: UserRoleSchema }));

export const InvitationCreateBody = named('InvitationCreateBody', Type.Object({ email: Email }, { additionalProperties: false }));

export const Invitation = named('Invitation', Type.Object({
  id: Type.String({ description: '`inv_…`' }),
  email: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type Invitation = Static<typeof Invitation>;
export const InvitationList = named('InvitationList', Type.Array(Invitation));

export const CreatedInvitation = named('CreatedInvitation', Type.Object({
  ...Invitation.properties,
  url: Type.Optional(Type.String({ description: 'The accept link, only when the server sends no email (no SMTP_URL): give it to the person yourself.' })),
}));
export type CreatedInvitation = Static<typeof CreatedInvitation>;

const invitationIdNotFound = () => new AppError('NOT_FOUND', 'Your organization has no invitation with this id.');
export const InvitationIdParams = Type.Object({ id: IdParam('inv', invitationIdNotFound, 'The invitation id (`inv_…`).') });
