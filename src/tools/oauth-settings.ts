import { AppError, type ErrorDetail } from '../http/errors.js';
import { checkEndpoint, type EndpointCheckPurpose, type EndpointPolicy } from '../net/endpoint-check.js';

/**
 * A tool's OAuth 2.0 provider (`authType: "oauth2"`): what the authorization code flow and every refresh need,
 * but the client secret, which is write-only and kept apart (client-secret.ts). Published with the definition.
 */
export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type TokenAuthMethod = (typeof TOKEN_AUTH_METHODS)[number];

export interface OAuthSettings {
  authorizationUrl: string;
  tokenUrl: string;
  scopes: string[];
  clientId: string;
  tokenAuthMethod: TokenAuthMethod;
  revocationUrl: string | null;
  extraAuthorizeParams: Record<string, string>;
}

export const MAX_SCOPES = 50;
export const MAX_EXTRA_AUTHORIZE_PARAMS = 20;
/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
export const SCOPE_PATTERN = '^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,200}$';
/** The parameters Switchboard sets itself on the authorization request: extras may not replace them. */
export const RESERVED_AUTHORIZE_PARAMS = new Set([
  'response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method',
  'client_secret', 'request', 'request_uri', 'response_mode',
]);

/** Settings in a fixed key order, extras sorted: equal settings have equal JSON (present.ts compares revisions by it). */
export function normalizeOAuthSettings(input: Omit<OAuthSettings, 'tokenAuthMethod' | 'revocationUrl' | 'extraAuthorizeParams'> & Partial<OAuthSettings>): OAuthSettings {
  const extras = input.extraAuthorizeParams ?? {};
  return {
    authorizationUrl: input.authorizationUrl,
    tokenUrl: input.tokenUrl,
    scopes: [...new Set(input.scopes)],
    clientId: input.clientId,
    tokenAuthMethod: input.tokenAuthMethod ?? 'client_secret_basic',
    revocationUrl: input.revocationUrl ?? null,
    extraAuthorizeParams: Object.fromEntries(Object.keys(extras).sort().map((key) => [key, extras[key]!])),
  };
}

/** The URLs of the settings, by field: each is held to the tool endpoints' rules (https, public addresses). */
export function oauthUrls(settings: OAuthSettings): Array<[field: string, url: string]> {
  return [
    ['oauth.authorizationUrl', settings.authorizationUrl],
    ['oauth.tokenUrl', settings.tokenUrl],
    ...(settings.revocationUrl !== null ? [['oauth.revocationUrl', settings.revocationUrl] as [string, string]] : []),
  ];
}

/** What a JSON schema cannot say. */
export function oauthSettingsProblems(settings: OAuthSettings): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const key of Object.keys(settings.extraAuthorizeParams)) {
    if (RESERVED_AUTHORIZE_PARAMS.has(key.toLowerCase())) {
      problems.push({ path: `oauth.extraAuthorizeParams.${key}`, message: 'is set by Switchboard itself on every authorization request' });
    }
  }
  return problems;
}

/**
 * Every URL of the settings under the tool endpoints' address policy: at save, at publish, and when a person
 * connects (DNS may have changed since). ENDPOINT_NOT_ALLOWED names the field.
 */
export async function checkOAuthUrls(settings: OAuthSettings, policy: EndpointPolicy, purpose: EndpointCheckPurpose): Promise<void> {
  for (const [field, url] of oauthUrls(settings)) {
    try {
      await checkEndpoint(url, policy, purpose);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'ENDPOINT_NOT_ALLOWED') throw error;
      throw new AppError('ENDPOINT_NOT_ALLOWED', `${field}: ${error.message.replace(/\bendpoint\b/g, 'URL')}`, { field });
    }
  }
}
