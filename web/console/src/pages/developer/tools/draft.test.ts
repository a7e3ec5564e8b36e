import { describe, expect, it } from 'vitest';
import type { DeveloperTool } from '../../../api/types';
import { blankDraft, blankExtraParam, blankOAuth, blankParameter, checks, comparable, draftOf, errorFields, moved, nameProblemsAsTyped, oauthDraftOf, parseScopes, toolBody, type ToolDraft } from './draft';

const draft = (overrides: Partial<ToolDraft> = {}): ToolDraft => ({
  ...blankDraft(),
  name: 'weather_lookup',
  description: 'Looks up the weather.',
  endpoint: 'https://api.example.com/weather',
  ...overrides,
});
const param = (name: string, extra: Partial<ReturnType<typeof blankParameter>> = {}) => ({ ...blankParameter(), name, ...extra });

describe('the tool editor draft', () => {
  it('refuses the reserved name and a repeated one as typed, in the API\'s words, and leaves an empty name for Save', () => {
    const d = draft({ parameters: [param('city'), param('_svc_context'), param('city'), param(''), param('2nd')] });
    expect(nameProblemsAsTyped(d)).toEqual({
      'parameters.1.name': 'The name cannot be _svc_context: the service uses that key for call context.',
      'parameters.2.name': 'The name repeats the parameter name "city".',
      'parameters.4.name': 'The name must start with a letter or _, then letters, digits or _ (at most 64 characters).',
    });
    expect(checks(d)['parameters.3.name']).toBe('Give the parameter a name, or remove it.');
  });

  it('sends every field; the key header only with api_key, items only on arrays', () => {
    const d = draft({
      authType: 'bearer',
      apiKeyHeader: 'X-Key',
      parameters: [param(' city ', { required: true, items: 'number' }), param('days', { type: 'array', items: 'number' }), param('tags', { type: 'array' })],
    });
    expect(toolBody(d)).toEqual({
      name: 'weather_lookup',
      description: 'Looks up the weather.',
      endpoint: 'https://api.example.com/weather',
      method: 'POST',
      authType: 'bearer',
      apiKeyHeader: null,
      category: 'other',
      parameters: [
        { name: 'city', type: 'string', description: '', required: true },
        { name: 'days', type: 'array', description: '', required: false, items: 'number' },
        { name: 'tags', type: 'array', description: '', required: false },
      ],
    });
    expect(toolBody({ ...d, authType: 'api_key' }).apiKeyHeader).toBe('X-Key');
  });

  it('moves a row up or down, and not past either end; row keys do not count as changes', () => {
    expect(moved(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moved(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moved(['a', 'b'], 0, -1)).toEqual(['a', 'b']);
    expect(moved(['a', 'b'], 1, 1)).toEqual(['a', 'b']);
    expect(comparable(draft({ parameters: [param('a')] }))).toBe(comparable(draft({ parameters: [param('a')] })));
  });

  it('sends no provider unless the tool is oauth2', () => {
    expect(toolBody(draft({ oauth: { ...blankOAuth(), tokenUrl: 'https://x.example/token' } }))).not.toHaveProperty('oauth');
  });
});

describe('the OAuth section of the draft', () => {
  const settings: NonNullable<DeveloperTool['oauth']> = {
    authorizationUrl: 'https://auth.example.com/authorize',
    tokenUrl: 'https://auth.example.com/token',
    scopes: ['openid', 'email', 'offline_access'],
    clientId: 'client-1',
    tokenAuthMethod: 'client_secret_post',
    revocationUrl: null,
    extraAuthorizeParams: { access_type: 'offline', prompt: 'consent' },
    hasClientSecret: true,
    redirectUri: 'https://switchboard.example/oauth/callback',
  };
  const oauthDraft = (overrides: Partial<ToolDraft['oauth']> = {}) => draft({ authType: 'oauth2', oauth: { ...oauthDraftOf(settings), ...overrides } });

  it('reads scopes separated by spaces or commas, each once', () => {
    expect(parseScopes(' openid, email  offline_access,,email\ncalendar.read ')).toEqual(['openid', 'email', 'offline_access', 'calendar.read']);
    expect(parseScopes('  ')).toEqual([]);
  });

  it('fills the form from the saved settings, never with a secret', () => {
    const form = oauthDraftOf(settings);
    expect(form).toMatchObject({ scopes: 'openid email offline_access', clientSecret: '', revocationUrl: '', tokenAuthMethod: 'client_secret_post' });
    expect(form.extraParams.map(({ name, value }) => [name, value])).toEqual([['access_type', 'offline'], ['prompt', 'consent']]);
    expect(oauthDraftOf(null)).toEqual(blankOAuth());
  });

  it('sends the settings trimmed and parsed; the secret only when typed, as typed; empty revocation URL as null; unnamed extras left out', () => {
    const d = oauthDraft({ tokenUrl: ' https://auth.example.com/token ', scopes: 'openid,email', extraParams: [...oauthDraftOf(settings).extraParams, { ...blankExtraParam(), value: 'ignored' }] });
    expect(toolBody(d).oauth).toEqual({
      authorizationUrl: 'https://auth.example.com/authorize',
      tokenUrl: 'https://auth.example.com/token',
      scopes: ['openid', 'email'],
      clientId: 'client-1',
      tokenAuthMethod: 'client_secret_post',
      revocationUrl: null,
      extraAuthorizeParams: { access_type: 'offline', prompt: 'consent' },
    });
    expect(toolBody(oauthDraft({ clientSecret: ' s3cret ', revocationUrl: 'https://auth.example.com/revoke' })).oauth).toMatchObject({ clientSecret: ' s3cret ', revocationUrl: 'https://auth.example.com/revoke' });
  });

  it('asks for the URLs, the client id, and a secret unless one is stored; checks the extras\' names', () => {
    const empty = draft({ authType: 'oauth2' });
    const found = checks(empty);
    expect(found['oauth.authorizationUrl']).toMatch(/authorization URL/);
    expect(found['oauth.tokenUrl']).toMatch(/token URL/);
    expect(found['oauth.clientId']).toMatch(/client id/);
    expect(found['oauth.clientSecret']).toMatch(/client secret/);
    expect(checks(oauthDraft(), true)['oauth.clientSecret']).toBeNull();
    expect(checks(oauthDraft({ scopes: 'openid "quoted"' }), true)['oauth.scopes']).toMatch(/quotes/);
    const extras = checks(oauthDraft({ extraParams: [{ key: 'a', name: 'prompt', value: 'x' }, { key: 'b', name: 'prompt', value: 'y' }, { key: 'c', name: '', value: 'z' }, { key: 'd', name: 'bad name', value: '' }] }), true);
    expect([extras['oauth.extra.0.name'], extras['oauth.extra.1.name'], extras['oauth.extra.2.name'], extras['oauth.extra.3.name']]).toEqual([
      null, 'The name repeats “prompt”.', 'Give the parameter a name, or remove it.', 'A name is letters, digits, _, . or - (at most 64 characters).',
    ]);
    // Not oauth2: none of these.
    expect(Object.keys(checks(draft())).some((key) => key.startsWith('oauth'))).toBe(false);
  });

  it('names the fields the API may refuse, an extra by its name too; a typed secret is an unsaved change', () => {
    const fields = errorFields(oauthDraft());
    expect(fields).toEqual(expect.arrayContaining(['oauth', 'oauth.tokenUrl', 'oauth.clientSecret', 'oauth.extra.1.name', 'oauth.extraAuthorizeParams.prompt']));
    expect(errorFields(draft())).not.toContain('oauth.tokenUrl');
    const tool = { ...draft(), id: 'tool_1', authType: 'oauth2', apiKeyHeader: null, parameters: [], oauth: settings } as unknown as DeveloperTool;
    expect(comparable(draftOf(tool))).toBe(comparable(draftOf(tool)));
    expect(comparable({ ...draftOf(tool), oauth: { ...draftOf(tool).oauth, clientSecret: 'new' } })).not.toBe(comparable(draftOf(tool)));
  });
});
