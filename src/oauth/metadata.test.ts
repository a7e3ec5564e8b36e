import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/context.js';
import { SCOPES } from './scopes.js';

type Metadata = Record<string, unknown>;

/** Authlib's `is_secure_transport`: https, or http to localhost or a loopback address (RFC 8252 §7.3). */
function isSecureTransport(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || /^127\./.test(host) || host === '::1' || /^::ffff:127\./.test(host);
}

/** Authlib's `is_valid_url`: a scheme and a host. */
function isValidUrl(value: unknown): boolean {
  try {
    return typeof value === 'string' && new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The checks of Authlib's `AuthorizationServerMetadata.validate()` (authlib/oauth2/rfc8414/models.py),
 * one by one, throwing its messages. Python's truthiness is spelled out: an empty string or an
 * empty list counts as missing, which is how Authlib turned down `response_types_supported: []`.
 */
function authlibValidate(metadata: Metadata): void {
  const present = (key: string) => {
    const value = metadata[key];
    return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
  };
  const list = (key: string, fallback: string[]) => (Array.isArray(metadata[key]) ? (metadata[key] as string[]) : fallback);
  const arrayIfPresent = (key: string) => {
    if (metadata[key] !== undefined && metadata[key] !== null && !Array.isArray(metadata[key])) throw new Error(`"${key}" MUST be JSON array`);
  };
  const secureIfPresent = (key: string) => {
    if (present(key) && !isSecureTransport(metadata[key])) throw new Error(`"${key}" MUST use "https" scheme`);
  };
  const urlIfPresent = (key: string) => {
    if (present(key) && !isValidUrl(metadata[key])) throw new Error(`"${key}" MUST be a URL`);
  };
  const algValues = (key: string, authMethods: string[]) => {
    const value = metadata[key];
    if (present(key) && !Array.isArray(value)) throw new Error(`"${key}" MUST be JSON array`);
    if (authMethods.some((m) => m === 'private_key_jwt' || m === 'client_secret_jwt') && !present(key)) throw new Error(`"${key}" is required`);
    if (Array.isArray(value) && value.includes('none')) throw new Error(`the value "none" MUST NOT be used in "${key}"`);
  };
  // Defaults Authlib assumes when a member is absent (RFC 8414 §2).
  const grantTypes = list('grant_types_supported', ['authorization_code', 'implicit']);
  const tokenAuthMethods = list('token_endpoint_auth_methods_supported', ['client_secret_basic']);

  // issuer
  if (!present('issuer')) throw new Error('"issuer" is required');
  if (!isSecureTransport(metadata.issuer)) throw new Error('"issuer" MUST use "https" scheme');
  const issuer = new URL(metadata.issuer as string);
  if (issuer.search !== '' || issuer.hash !== '') throw new Error('"issuer" has no query or fragment');
  // authorization_endpoint: required when a grant uses it
  if (present('authorization_endpoint')) secureIfPresent('authorization_endpoint');
  else if (grantTypes.some((g) => g === 'authorization_code' || g === 'implicit')) throw new Error('"authorization_endpoint" is required');
  // token_endpoint: required unless only the implicit grant is supported
  if (!(grantTypes.length === 1 && grantTypes[0] === 'implicit')) {
    if (!present('token_endpoint')) throw new Error('"token_endpoint" is required');
    if (!isSecureTransport(metadata.token_endpoint)) throw new Error('"token_endpoint" MUST use "https" scheme');
  }
  secureIfPresent('jwks_uri');
  secureIfPresent('registration_endpoint');
  arrayIfPresent('scopes_supported');
  // response_types_supported: REQUIRED, and Python's `not []` makes an empty list missing
  if (!present('response_types_supported')) throw new Error('"response_types_supported" is required');
  if (!Array.isArray(metadata.response_types_supported)) throw new Error('"response_types_supported" MUST be JSON array');
  arrayIfPresent('response_modes_supported');
  arrayIfPresent('grant_types_supported');
  arrayIfPresent('token_endpoint_auth_methods_supported');
  algValues('token_endpoint_auth_signing_alg_values_supported', tokenAuthMethods);
  urlIfPresent('service_documentation');
  arrayIfPresent('ui_locales_supported');
  urlIfPresent('op_policy_uri');
  urlIfPresent('op_tos_uri');
  secureIfPresent('revocation_endpoint');
  arrayIfPresent('revocation_endpoint_auth_methods_supported');
  algValues('revocation_endpoint_auth_signing_alg_values_supported', list('revocation_endpoint_auth_methods_supported', ['client_secret_basic']));
  secureIfPresent('introspection_endpoint');
  arrayIfPresent('introspection_endpoint_auth_methods_supported');
  algValues('introspection_endpoint_auth_signing_alg_values_supported', list('introspection_endpoint_auth_methods_supported', ['client_secret_basic']));
  arrayIfPresent('code_challenge_methods_supported');
}

/** What RFC 8414 asks beyond Authlib's checks, for this server's document. */
function expectRfc8414(metadata: Metadata, publicUrl: string): void {
  // §2: the issuer is our identifier, PUBLIC_URL itself; every endpoint lives under it.
  expect(metadata.issuer).toBe(publicUrl);
  for (const key of ['token_endpoint', 'revocation_endpoint', 'service_documentation']) {
    expect(String(metadata[key]).startsWith(`${publicUrl}/`), `${key} is under the issuer`).toBe(true);
  }
  // §3.2: members with no value are omitted, never null; arrays hold strings and are never empty.
  for (const [key, value] of Object.entries(metadata)) {
    expect(value, key).not.toBeNull();
    if (Array.isArray(value)) {
      expect(value.length, `${key} is empty`).toBeGreaterThan(0);
      for (const item of value) expect(typeof item, key).toBe('string');
    }
  }
  // REQUIRED and RECOMMENDED members, with what this server supports.
  // Developer apps' client credentials, and MCP hosts' authorization code flow (public clients, PKCE S256).
  expect(metadata.response_types_supported).toEqual(['code']);
  expect(metadata.grant_types_supported).toEqual(['client_credentials', 'authorization_code', 'refresh_token']);
  expect(metadata.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
  expect(metadata.revocation_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
  expect(metadata.scopes_supported).toEqual([...SCOPES, 'mcp:tools']);
  expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  expect(metadata.client_id_metadata_document_supported).toBe(true);
  expect(metadata.authorization_endpoint).toBe(`${metadata.issuer as string}/oauth/authorize`);
  expect(metadata.registration_endpoint).toBe(`${metadata.issuer as string}/oauth/register`);
}

describe('authorization server metadata (RFC 8414)', () => {
  const contexts: TestContext[] = [];
  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  describe.each([
    ['the test configuration', {}],
    ['a production configuration', { NODE_ENV: 'production', PUBLIC_URL: 'https://switchboard.example.com/' }],
  ])('with %s', (_label, env: Record<string, string>) => {
    let t: TestContext;
    let metadata: Metadata;

    beforeAll(async () => {
      t = await createTestContext('sqlite', { env });
      contexts.push(t);
      const res = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      metadata = res.json();
    });

    it("passes Authlib's validation", () => {
      expect(() => authlibValidate(metadata)).not.toThrow();
    });

    it('has every member RFC 8414 requires and recommends, as it wants them', () => {
      expectRfc8414(metadata, t.config.publicUrl);
      if (t.config.env === 'production') expect(metadata.issuer).toBe('https://switchboard.example.com');
    });
  });

  it("turns down what Authlib turns down (the checker's own test)", () => {
    const valid: Metadata = {
      issuer: 'https://as.example.com',
      token_endpoint: 'https://as.example.com/token',
      grant_types_supported: ['client_credentials'],
      response_types_supported: ['token'],
    };
    expect(() => authlibValidate(valid)).not.toThrow();
    expect(() => authlibValidate({ ...valid, response_types_supported: [] })).toThrow('"response_types_supported" is required');
    expect(() => authlibValidate({ ...valid, response_types_supported: undefined })).toThrow('"response_types_supported" is required');
    expect(() => authlibValidate({ ...valid, issuer: 'http://as.example.com' })).toThrow('"issuer" MUST use "https" scheme');
    expect(() => authlibValidate({ ...valid, issuer: 'https://as.example.com/?x=1' })).toThrow('"issuer" has no query or fragment');
    expect(() => authlibValidate({ ...valid, grant_types_supported: ['authorization_code'] })).toThrow('"authorization_endpoint" is required');
    expect(() => authlibValidate({ ...valid, grant_types_supported: undefined })).toThrow('"authorization_endpoint" is required');
    expect(() => authlibValidate({ ...valid, token_endpoint: undefined })).toThrow('"token_endpoint" is required');
    expect(() => authlibValidate({ ...valid, scopes_supported: 'tools:read' })).toThrow('"scopes_supported" MUST be JSON array');
    expect(() => authlibValidate({ ...valid, token_endpoint_auth_methods_supported: ['private_key_jwt'] })).toThrow('is required');
    expect(() => authlibValidate({ ...valid, service_documentation: 'docs' })).toThrow('"service_documentation" MUST be a URL');
    expect(() => authlibValidate({ ...valid, issuer: 'http://localhost:3000', token_endpoint: 'http://127.0.0.1:3000/token' })).not.toThrow();
  });
});
