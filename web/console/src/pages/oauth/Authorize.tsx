import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { ApiError } from '../../api/client';
import { useSessionActions } from '../../api/session';
import { FormError } from '../../components/fields';
import { Page } from '../../components/Page';
import { LoadError, Loading } from '../../components/QueryState';
import { RequireSession } from '../../components/RequireSession';
import {
  clientIdHost, decisionBody, fetchAuthorizationRequest, initialAgent, oauthKeys, parseAuthorizationQuery, safeLogo, safeRedirect, sendDecision,
  type AuthorizationQuery, type Decision, type McpAuthorizationRequest,
} from './api';
import './authorize.css';

/**
 * `/app/authorize`: an MCP host (Claude, ChatGPT, VS Code…) asks for one of the organization's agents
 * (OAuth 2.1 for `/mcp`, issue 34). Signed out, the guard sends the person to sign in and back here, query
 * and all. Then: who asks (as the app describes itself, not verified), where the tab goes afterwards, the
 * organization, which agent, what it may do; Approve or Deny, and the tab follows the server's `redirectTo`.
 */
export default function AuthorizePage() {
  return (
    <RequireSession>
      <Authorize />
    </RequireSession>
  );
}

const TITLE = 'Connect an app to an agent';

function Authorize() {
  const location = useLocation();
  const parsed = useMemo(() => parseAuthorizationQuery(location.search), [location.search]);
  // Most visits are a full load (the app opened this address): the heading takes focus so it is read out first.
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, []);
  return (
    <Page title={TITLE}>
      {parsed.ok ? (
        <AuthorizationRequest query={parsed.query} />
      ) : (
        <p className="form-error" role="alert">
          {parsed.message}
        </p>
      )}
    </Page>
  );
}

/** A 401: the session ended since the page was opened. Forgetting it lets the guard send to sign-in and back. */
function useEndOnUnauthorized(error: unknown): void {
  const { end } = useSessionActions();
  const unauthorized = error instanceof ApiError && error.status === 401;
  useEffect(() => {
    if (unauthorized) end();
  }, [unauthorized, end]);
}

function AuthorizationRequest({ query }: { query: AuthorizationQuery }) {
  const request = useQuery({
    queryKey: oauthKeys.request(query),
    queryFn: ({ signal }) => fetchAuthorizationRequest(query, signal),
    staleTime: Infinity,
    gcTime: 0,
  });
  useEndOnUnauthorized(request.error);
  if (request.isPending) return <Loading label="Reading the app’s request…" />;
  // The server's refusal, as it words it, and no way to approve.
  if (request.isError) return <LoadError error={request.error} />;
  return <Consent request={request.data} query={query} />;
}

function Consent({ request, query }: { request: McpAuthorizationRequest; query: AuthorizationQuery }) {
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [agentId, setAgentId] = useState<string | null>(() => initialAgent(request.agents));
  const [agentError, setAgentError] = useState<string | null>(null);
  const [logoFailed, setLogoFailed] = useState(false);
  const decide = useMutation({
    mutationFn: async (decision: Decision) => {
      const answer = await sendDecision(decisionBody(query, agentId, decision));
      const to = safeRedirect(answer.redirectTo);
      if (!to) throw new Error('Switchboard answered with an address this page does not open. Start again from the app.');
      window.location.assign(to);
      // The page is being replaced: stay pending rather than offer the buttons again for a moment.
      await new Promise(() => {});
    },
  });
  useEndOnUnauthorized(decide.error);

  const logo = logoFailed ? null : safeLogo(request.client.logoUri);
  const described = clientIdHost(request.client.id);
  const noAgents = request.agents.length === 0;
  const errorId = `${id}-agent-error`;
  const busy = decide.isPending;

  function approve(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    if (!agentId) {
      setAgentError('Choose the agent it may use.');
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLInputElement>('input[type="radio"]')?.focus());
      return;
    }
    setAgentError(null);
    decide.mutate('approve');
  }

  function deny() {
    if (busy) return;
    setAgentError(null);
    decide.mutate('deny');
  }

  return (
    <>
      <section className="consent-section" aria-labelledby={`${id}-app`}>
        <h2 id={`${id}-app`}>Who asks</h2>
        <div className="consent-client">
          {logo ? <img className="consent-logo" src={logo} alt="" width={48} height={48} referrerPolicy="no-referrer" onError={() => setLogoFailed(true)} /> : null}
          <div>
            <p className="consent-client-name">{request.client.name}</p>
            <p className="consent-unverified">
              <strong>Unverified app:</strong> the name and logo are what the app says about itself.
              {described ? <> It describes itself at {described}.</> : null}
            </p>
          </div>
        </div>
        <p>
          {noAgents ? 'After you deny, you go back to' : 'After you approve, you go back to'} <strong className="consent-host">{request.redirectHost}</strong>.
        </p>
      </section>
      <dl className="kv consent-section">
        <dt>Organization</dt>
        <dd>{request.organization.name}</dd>
      </dl>
      <form ref={formRef} onSubmit={approve} noValidate aria-label="Approve or deny">
        {noAgents ? (
          <p className="notice">
            You manage no agent in {request.organization.name} yet, so there is nothing it could use. <Link to="/agents/new">Create an agent</Link>, then
            start again from the app.
          </p>
        ) : (
          <fieldset aria-describedby={agentError ? errorId : undefined}>
            <legend>Which agent may it use?</legend>
            {request.agents.map((agent) => (
              <div className="check" key={agent.id}>
                <input
                  id={`${id}-agent-${agent.id}`}
                  type="radio"
                  name="agentId"
                  value={agent.id}
                  required
                  checked={agentId === agent.id}
                  aria-invalid={agentError ? true : undefined}
                  onChange={() => {
                    setAgentId(agent.id);
                    setAgentError(null);
                  }}
                />
                <label htmlFor={`${id}-agent-${agent.id}`}>{agent.name}</label>
              </div>
            ))}
            {agentError ? (
              <p id={errorId} className="field-error">
                {agentError}
              </p>
            ) : null}
          </fieldset>
        )}
        <section className="consent-section" aria-labelledby={`${id}-may`}>
          <h2 id={`${id}-may`}>What it may do</h2>
          <ul className="consent-permissions">
            {request.permissions.map((permission) => (
              <li key={permission}>{permission}</li>
            ))}
          </ul>
          <p className="hint">Nothing else. You can revoke it at any time under Tools and MCP on the agent’s page.</p>
        </section>
        <FormError error={decide.error} />
        {busy && decide.variables ? (
          <p role="status" className="muted">
            Going back to {request.redirectHost}…
          </p>
        ) : null}
        <div className="actions">
          {noAgents ? null : (
            <button type="submit" className="button primary" aria-disabled={busy}>
              Approve
            </button>
          )}
          <button type="button" className="button" aria-disabled={busy} onClick={deny}>
            Deny
          </button>
        </div>
      </form>
    </>
  );
}
