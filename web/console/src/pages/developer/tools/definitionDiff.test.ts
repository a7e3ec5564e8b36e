import { describe, expect, it } from 'vitest';
import type { ToolParameter } from '../../../api/types';
import { diffDefinitions, isEmptyDiff, type Definition } from './definitionDiff';

const param = (name: string, overrides: Partial<ToolParameter> = {}): ToolParameter => ({ name, type: 'string', description: '', required: false, ...overrides });
const live: Definition = {
  name: 'get_quote', description: 'Quotes shipping.', endpoint: 'https://api.example.com/quote', method: 'POST', authType: 'none', apiKeyHeader: null, category: 'other',
  parameters: [param('city', { required: true }), param('weight', { type: 'number' }), param('notes')],
};

describe('the publish diff', () => {
  it('is empty for the same definition', () => {
    expect(isEmptyDiff(diffDefinitions(live, structuredClone(live)))).toBe(true);
  });

  it('names each changed field with its value before and after', () => {
    const diff = diffDefinitions(live, { ...live, description: 'Quotes parcels.', authType: 'api_key', apiKeyHeader: 'X-Key' });
    expect(diff.fields).toEqual([
      { field: 'description', label: 'Description', before: 'Quotes shipping.', after: 'Quotes parcels.' },
      { field: 'authType', label: 'Authentication', before: 'none', after: 'api_key' },
      { field: 'apiKeyHeader', label: 'API key header', before: '(none)', after: 'X-Key' },
    ]);
    expect(diff.parameters).toEqual([]);
  });

  it('lists parameters added, removed and changed by name, and a new order', () => {
    const diff = diffDefinitions(live, {
      ...live,
      parameters: [param('weight', { type: 'array', items: 'number', required: true }), param('city', { required: true }), param('country')],
    });
    expect(diff.parameters).toEqual([
      { kind: 'changed', name: 'weight', changes: [
        { label: 'Type', before: 'number', after: 'array' },
        { label: 'Item type', before: '(none)', after: 'number' },
        { label: 'Required', before: 'no', after: 'yes' },
      ] },
      { kind: 'added', name: 'country', after: param('country') },
      { kind: 'removed', name: 'notes', before: param('notes') },
    ]);
    expect(diff.reordered).toBe(true);
    expect(diffDefinitions(live, { ...live, parameters: [...live.parameters, param('extra')] }).reordered).toBe(false);
  });

  it('compares an oauth2 tool\'s provider setting by setting', () => {
    const oauth = { authorizationUrl: 'https://a.example/authorize', tokenUrl: 'https://a.example/token', scopes: ['openid'], clientId: 'c1', tokenAuthMethod: 'client_secret_basic', revocationUrl: null, extraAuthorizeParams: {} };
    const before = { ...live, authType: 'oauth2', oauth };
    expect(isEmptyDiff(diffDefinitions(before, { ...before, oauth: { ...oauth, scopes: ['openid'] } }))).toBe(true);
    expect(diffDefinitions(before, { ...before, oauth: { ...oauth, scopes: ['openid', 'email'], extraAuthorizeParams: { prompt: 'consent' } } }).fields).toEqual([
      { field: 'oauth.scopes', label: 'OAuth scopes', before: 'openid', after: 'openid email' },
      { field: 'oauth.extraAuthorizeParams', label: 'Extra authorization parameters', before: '(none)', after: 'prompt=consent' },
    ]);
    const fields = diffDefinitions({ ...live, oauth: null }, before).fields.map((change) => change.field);
    expect(fields).toEqual(['authType', 'oauth.authorizationUrl', 'oauth.tokenUrl', 'oauth.scopes', 'oauth.clientId', 'oauth.tokenAuthMethod']);
  });
});
