import { describe, expect, it } from 'vitest';
import {
  AUTHORIZATION_PARAMS, clientIdHost, decisionBody, initialAgent, MISSING_REQUEST, parseAuthorizationQuery, requestPath, safeLogo, safeRedirect,
} from './api';

const request = {
  response_type: 'code',
  client_id: 'https://claude.ai/oauth/mcp-client-metadata',
  redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  state: 'st+/= ä&x',
  scope: 'mcp:tools',
  resource: 'https://switchboard.example.com/mcp',
};

describe('the authorization request in the address', () => {
  it('takes the eight parameters as written, and nothing else', () => {
    const search = `?${new URLSearchParams({ ...request, prompt: 'consent', agentId: 'agt_evil', decision: 'approve' }).toString()}`;
    const parsed = parseAuthorizationQuery(search);
    expect(parsed).toEqual({ ok: true, query: request });
  });

  it('leaves out what is absent, and keeps an empty value', () => {
    const parsed = parseAuthorizationQuery('?client_id=c1&redirect_uri=http%3A%2F%2F127.0.0.1%3A3334%2Fcb&state=');
    expect(parsed).toEqual({ ok: true, query: { client_id: 'c1', redirect_uri: 'http://127.0.0.1:3334/cb', state: '' } });
  });

  it('refuses a parameter given twice', () => {
    const parsed = parseAuthorizationQuery('?client_id=c1&redirect_uri=https%3A%2F%2Fa.example%2Fcb&resource=https%3A%2F%2Fx%2Fmcp&resource=https%3A%2F%2Fy%2Fmcp');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(/resource more than once/);
  });

  it('has no request without client_id or redirect_uri', () => {
    expect(parseAuthorizationQuery('')).toEqual({ ok: false, message: MISSING_REQUEST });
    expect(parseAuthorizationQuery('?client_id=c1')).toEqual({ ok: false, message: MISSING_REQUEST });
    expect(parseAuthorizationQuery('?redirect_uri=https%3A%2F%2Fa.example%2Fcb')).toEqual({ ok: false, message: MISSING_REQUEST });
  });

  it('asks the server about exactly that request', () => {
    const path = requestPath({ ...request, state: '' });
    expect(path.startsWith('/api/auth/mcp-authorization?')).toBe(true);
    const sent = new URLSearchParams(path.slice(path.indexOf('?')));
    expect(Object.fromEntries(sent)).toEqual({ ...request, state: '' });
    expect([...sent.keys()]).toEqual([...AUTHORIZATION_PARAMS]);
  });
});

describe('the body of Approve and Deny', () => {
  it('sends every parameter as a string, the agent and the decision', () => {
    expect(decisionBody(request, 'agt_1', 'approve')).toEqual({ ...request, agentId: 'agt_1', decision: 'approve' });
  });

  it('leaves out what the request did not have', () => {
    expect(decisionBody({ client_id: 'c1', redirect_uri: 'https://a.example/cb', state: '' }, 'agt_1', 'approve')).toEqual({
      client_id: 'c1',
      redirect_uri: 'https://a.example/cb',
      state: '',
      agentId: 'agt_1',
      decision: 'approve',
    });
  });

  it('denies without an agent when none was chosen', () => {
    const body = decisionBody(request, null, 'deny');
    expect(body).toEqual({ ...request, decision: 'deny' });
    expect('agentId' in body).toBe(false);
    expect(decisionBody(request, 'agt_2', 'deny')).toMatchObject({ agentId: 'agt_2', decision: 'deny' });
  });

  it('cannot be given another decision or agent through the query', () => {
    const sneaky = { ...request, decision: 'approve', agentId: 'agt_evil' } as unknown as typeof request;
    expect(decisionBody(sneaky, 'agt_1', 'deny')).toEqual({ ...request, agentId: 'agt_1', decision: 'deny' });
  });
});

describe('the page’s choices and guards', () => {
  it('preselects the only agent', () => {
    expect(initialAgent([{ id: 'agt_1' }])).toBe('agt_1');
    expect(initialAgent([{ id: 'agt_1' }, { id: 'agt_2' }])).toBeNull();
    expect(initialAgent([])).toBeNull();
  });

  it('follows redirectTo to the app, never into this page', () => {
    expect(safeRedirect('https://claude.ai/api/mcp/auth_callback?code=c&state=s')).toBe('https://claude.ai/api/mcp/auth_callback?code=c&state=s');
    expect(safeRedirect('http://127.0.0.1:33418/callback?error=access_denied&state=s')).toBe('http://127.0.0.1:33418/callback?error=access_denied&state=s');
    expect(safeRedirect('cursor://anysphere.cursor-mcp/oauth/callback?code=c')).toBe('cursor://anysphere.cursor-mcp/oauth/callback?code=c');
    for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<script>1</script>', 'vbscript:x', 'blob:https://a.example/1', 'file:///etc/passwd', '/app/forms', '', null, 42]) {
      expect(safeRedirect(bad)).toBeNull();
    }
  });

  it('shows only an https logo', () => {
    expect(safeLogo('https://claude.ai/logo.png')).toBe('https://claude.ai/logo.png');
    expect(safeLogo('http://claude.ai/logo.png')).toBeNull();
    expect(safeLogo('data:image/svg+xml,<svg/>')).toBeNull();
    expect(safeLogo('not a url')).toBeNull();
    expect(safeLogo(null)).toBeNull();
  });

  it('names the host of a metadata document’s client id, not of an opaque one', () => {
    expect(clientIdHost('https://claude.ai/oauth/mcp-client-metadata')).toBe('claude.ai');
    expect(clientIdHost('https://app.example:8443/client.json')).toBe('app.example:8443');
    expect(clientIdHost('mcpc_4f9a8b')).toBeNull();
    expect(clientIdHost('http://app.example/client.json')).toBeNull();
  });
});
