import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, seg } from '../api/client';
import { itemsOf } from '../api/items';
import { queryKeys } from '../api/lists';
import { AREA_HOME, SESSION_KEY, useCurrentSession } from '../api/session';
import type { CreatedInvitation, Invitation, Member, MemberRoleBody, Page as PageOf } from '../api/types';
import { CopyButton } from '../components/CopyButton';
import { ConfirmButton } from '../components/dialogs';
import { FormError, TextField } from '../components/fields';
import { LimitNotice } from '../components/LimitNotice';
import { Page } from '../components/Page';
import { limitKeys, useOrgLimits } from '../lib/limits';
import { LoadError, Loading } from '../components/QueryState';
import { emailProblem } from '../lib/errors';
import { formatDate } from '../lib/format';
import { useNotify } from '../lib/notices';
import { useFormErrors } from '../lib/useFormErrors';
import { TableWrap } from '../components/TableWrap';

/** Members and invitations (owners only). */
export default function MembersPage() {
  const notify = useNotify();
  const session = useCurrentSession();
  const client = useQueryClient();
  const members = useQuery({ queryKey: queryKeys.members, queryFn: async () => itemsOf(await api.get<Member[] | PageOf<Member>>('/api/org/members')) });
  const invitations = useQuery({
    queryKey: queryKeys.invitations,
    queryFn: async () => itemsOf(await api.get<Invitation[] | PageOf<Invitation>>('/api/org/invitations')),
  });
  const formRef = useRef<HTMLFormElement>(null);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<CreatedInvitation | null>(null);
  const invite = useMutation({
    mutationFn: () => api.post<CreatedInvitation>('/api/org/invitations', { email: email.trim() }),
    onSuccess: (invitation) => {
      setSent(invitation);
      setEmail('');
      void client.invalidateQueries({ queryKey: queryKeys.invitations });
      void client.invalidateQueries({ queryKey: limitKeys.all });
      if (!invitation.url) notify(`Invitation sent to ${invitation.email}.`);
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(['email'], invite.error);
  // Not disabled at the limit: inviting an email again replaces its pending invitation, which the limit allows.
  const pending = useOrgLimits().data?.pendingInvitations;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (invite.isPending) return;
    if (errors.check(formRef.current, { email: emailProblem(email) })) invite.mutate();
  }

  return (
    <Page title="Members" intro={`People who work in ${session.organization?.name ?? 'your organization'}. Members can do everything except manage members and API keys.`}>
      <section className="card" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <form ref={formRef} onSubmit={submit} noValidate className="row">
          <TextField label="Email" type="email" name="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.error('email')} />
          <div className="field">
            <button type="submit" className="button primary" aria-disabled={invite.isPending}>
              {invite.isPending ? 'Inviting…' : 'Send invitation'}
            </button>
          </div>
        </form>
        <FormError error={errors.general} />
        <LimitNotice id="invitations-limit" usage={pending} noun="pending invitations" holder="your organization" remedy="Revoke one you no longer need (unanswered ones lapse after 7 days)" />
        {sent?.url ? (
          <div className="notice" role="status">
            <p>
              This server sends no email, so send this link to <strong>{sent.email}</strong> yourself. It works once, until {formatDate(sent.expiresAt)}.
            </p>
            <code className="secret" aria-label="Invitation link">
              {sent.url}
            </code>
            <CopyButton text={sent.url} label="Copy invitation link" />
          </div>
        ) : null}
      </section>

      <h2>Members</h2>
      {members.isPending ? (
        <Loading />
      ) : members.isError ? (
        <LoadError error={members.error} retry={() => void members.refetch()} />
      ) : (
        <TableWrap label="Members">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((member) => (
                <tr key={member.id}>
                  <td>
                    {member.name}
                    {member.id === session.user.id ? <span className="muted"> (you)</span> : null}
                  </td>
                  <td>{member.email}</td>
                  <td>{member.role === 'owner' ? 'Owner' : 'Member'}</td>
                  <td>{formatDate(member.createdAt)}</td>
                  <td>
                    <div className="row-actions">
                      <RoleButton member={member} />
                      {member.id !== session.user.id ? (
                        <ConfirmButton
                          label="Remove"
                          buttonLabel={`Remove ${member.name || member.email}`}
                          title={`Remove ${member.name || member.email}?`}
                          confirmLabel="Remove member"
                          className="button small danger-outline"
                          onConfirm={async () => {
                            await api.delete(`/api/org/members/${seg(member.id)}`);
                            await client.invalidateQueries({ queryKey: queryKeys.members });
                            notify(`${member.name || member.email} was removed.`);
                          }}
                        >
                          <p>They are signed out and can no longer open {session.organization?.name ?? 'your organization'}. Their records stay.</p>
                        </ConfirmButton>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}

      <h2>Pending invitations</h2>
      {invitations.isPending ? (
        <Loading />
      ) : invitations.isError ? (
        <LoadError error={invitations.error} retry={() => void invitations.refetch()} />
      ) : invitations.data.length === 0 ? (
        <p className="muted">No pending invitations. Invite a teammate above by email.</p>
      ) : (
        <TableWrap label="Pending invitations">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Sent</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((invitation) => (
                <tr key={invitation.id}>
                  <td>{invitation.email}</td>
                  <td>{formatDate(invitation.createdAt)}</td>
                  <td>{formatDate(invitation.expiresAt)}</td>
                  <td>
                    <ConfirmButton
                      label="Revoke"
                      buttonLabel={`Revoke invitation for ${invitation.email}`}
                      title={`Revoke the invitation for ${invitation.email}?`}
                      confirmLabel="Revoke invitation"
                      className="button small danger-outline"
                      onConfirm={async () => {
                        await api.delete(`/api/org/invitations/${seg(invitation.id)}`);
                        if (sent?.id === invitation.id) setSent(null);
                        await Promise.all([client.invalidateQueries({ queryKey: queryKeys.invitations }), client.invalidateQueries({ queryKey: limitKeys.all })]);
                        notify(`The invitation for ${invitation.email} is revoked.`);
                      }}
                    >
                      <p>The link stops working. You can invite them again later.</p>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}

/**
 * "Make owner" / "Make member" for one row, behind a confirmation (an owner can manage members and API keys).
 * The owner's own row has it too: the server refuses to demote the last owner, and the dialog shows its words.
 * One button whatever the role, so focus returns to it after the change.
 */
function RoleButton({ member }: { member: Member }) {
  const notify = useNotify();
  const session = useCurrentSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const self = member.id === session.user.id;
  const who = member.name || member.email;
  const role: MemberRoleBody['role'] = member.role === 'owner' ? 'member' : 'owner';
  const org = session.organization?.name ?? 'your organization';
  const action = role === 'owner' ? 'Make owner' : 'Make member';
  return (
    <ConfirmButton
      label={action}
      // The visible words first (WCAG 2.5.3), then whose row it is.
      buttonLabel={`${action}: ${who}${self ? ' (you)' : ''}`}
      title={self ? 'Make yourself a member?' : role === 'owner' ? `Make ${who} an owner?` : `Make ${who} a member?`}
      confirmLabel={action}
      className={role === 'owner' ? 'button small' : 'button small danger-outline'}
      onConfirm={async () => {
        const body: MemberRoleBody = { role };
        await api.patch<Member>(`/api/org/members/${seg(member.id)}`, body);
        if (self) {
          // No longer an owner: this page is not for them any more.
          await client.invalidateQueries({ queryKey: SESSION_KEY });
          navigate(AREA_HOME.business, { replace: true });
          notify('You are a member now.');
          return;
        }
        await client.invalidateQueries({ queryKey: queryKeys.members });
        notify(role === 'owner' ? `${who} is an owner now.` : `${who} is a member now.`);
      }}
    >
      <p>
        {role === 'owner'
          ? `They can manage members, invitations and API keys of ${org}, and change your role.`
          : self
            ? 'You can no longer manage members, invitations and API keys. Another owner can make you an owner again.'
            : 'They can no longer manage members, invitations and API keys.'}
      </p>
    </ConfirmButton>
  );
}
