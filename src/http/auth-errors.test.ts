import { describe, expect, it } from 'vitest';
import { basicChallenge, bearerChallenge, insufficientScope, invalidClient, invalidToken, missingCredentials } from './auth-errors.js';

describe('auth-errors', () => {
  it('builds every challenge the service sends, byte for byte', () => {
    expect(bearerChallenge()).toBe('Bearer realm="switchboard"');
    expect(bearerChallenge('invalid_token')).toBe('Bearer realm="switchboard", error="invalid_token"');
    expect(bearerChallenge('invalid_token', { description: 'The access token has expired.' })).toBe(
      'Bearer realm="switchboard", error="invalid_token", error_description="The access token has expired."',
    );
    expect(bearerChallenge('insufficient_scope', { scope: 'tools:read' })).toBe('Bearer realm="switchboard", error="insufficient_scope", scope="tools:read"');
    expect(basicChallenge()).toBe('Basic realm="switchboard"');
    expect(basicChallenge({ charset: true })).toBe('Basic realm="switchboard", charset="UTF-8"');
  });

  it('makes the 401s and the 403 with their codes, messages and challenges', () => {
    const missing = missingCredentials('Send a key.');
    expect([missing.status, missing.code, missing.message, missing.headers]).toEqual([401, 'UNAUTHORIZED', 'Send a key.', { 'WWW-Authenticate': 'Bearer realm="switchboard"' }]);
    const invalid = invalidToken('The key is not valid – at all.');
    // Not described: the message (here with a non-ASCII dash) stays out of the header.
    expect([invalid.status, invalid.code, invalid.headers]).toEqual([401, 'INVALID_TOKEN', { 'WWW-Authenticate': 'Bearer realm="switchboard", error="invalid_token"' }]);
    expect(invalidToken('Not in the URL.', { error: 'invalid_request' }).headers['WWW-Authenticate']).toBe('Bearer realm="switchboard", error="invalid_request"');
    expect(invalidToken('Expired.', { describe: true }).headers['WWW-Authenticate']).toBe('Bearer realm="switchboard", error="invalid_token", error_description="Expired."');
    const scope = insufficientScope('Needs tools:write.', 'tools:write');
    expect([scope.status, scope.code, scope.headers]).toEqual([403, 'INSUFFICIENT_SCOPE', { 'WWW-Authenticate': 'Bearer realm="switchboard", error="insufficient_scope", scope="tools:write"' }]);
    expect(invalidClient('Wrong secret.', { charset: true }).headers).toEqual({ 'WWW-Authenticate': 'Basic realm="switchboard", charset="UTF-8"' });
    expect(invalidClient('Wrong secret.').headers).toEqual({});
    expect(invalidClient('Wrong secret.').status).toBe(401);
  });

  it('refuses to quote text a header cannot carry, so such a message fails here rather than as a 500', () => {
    expect(() => invalidToken('The “key” is not valid.', { describe: true })).toThrow(/printable ASCII/);
    expect(() => bearerChallenge('invalid_token', { description: 'a "quoted" word' })).toThrow(/printable ASCII/);
  });
});
