import { describe, expect, it } from 'vitest';
import { CREDENTIAL_FIELDS, credentialProblems, credentialsBody } from './credentials';

describe('credentials by auth type', () => {
  it('sends exactly the fields the auth type takes', () => {
    expect(credentialsBody('bearer', { token: 'tok_1', apiKey: 'stray' })).toEqual({ token: 'tok_1' });
    expect(credentialsBody('api_key', { apiKey: ' k ' })).toEqual({ apiKey: ' k ' });
    expect(credentialsBody('basic', { username: 'ann', password: 'pw' })).toEqual({ username: 'ann', password: 'pw' });
    expect(credentialsBody('hmac', { secret: 's' })).toEqual({ secret: 's' });
  });

  it('sends none when nothing was typed, or for a tool without credentials', () => {
    expect(credentialsBody('bearer', {})).toBeUndefined();
    expect(credentialsBody('basic', { username: '', password: '' })).toBeUndefined();
    expect(credentialsBody('none', { token: 'x' })).toBeUndefined();
  });

  it('asks for every field once one is typed, or when they are required', () => {
    expect(credentialProblems('basic', { username: 'ann' })).toEqual({ 'credentials.username': null, 'credentials.password': 'Enter the password.' });
    expect(credentialProblems('basic', {})).toEqual({ 'credentials.username': null, 'credentials.password': null });
    expect(credentialProblems('bearer', {}, true)).toEqual({ 'credentials.token': 'Enter the bearer token.' });
    expect(credentialProblems('none', {}, true)).toEqual({});
  });

  it('never lets a browser fill in or remember a secret', () => {
    for (const fields of Object.values(CREDENTIAL_FIELDS)) for (const field of fields) if (field.secret) expect(field.autoComplete).toBe('new-password');
  });
});
