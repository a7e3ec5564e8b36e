import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { emailProblem, fieldError, firstErrors, formLevelError, passwordProblem, splitErrors } from './errors';

describe('splitErrors', () => {
  it('puts a refusal naming a field on that input', () => {
    const error = new ApiError({ status: 409, code: 'CONFLICT', message: 'This slug is taken.', field: 'slug' });
    expect(splitErrors(error, ['slug', 'title'])).toEqual({ fields: { slug: 'This slug is taken.' }, general: null });
  });

  it('places a refusal on a nested field on its parent input', () => {
    const error = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'A required field must be enabled.', field: 'fields.email' });
    expect(splitErrors(error, ['fields'])).toEqual({ fields: { fields: 'A required field must be enabled.' }, general: null });
    const custom = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Pick one.', field: 'custom.insurer' });
    expect(splitErrors(custom, ['custom.insurer', 'custom'])).toEqual({ fields: { 'custom.insurer': 'Pick one.' }, general: null });
  });

  it('places a deeper path on its longest known parent', () => {
    const scope = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Bad scope.', field: 'oauth.scopes.2' });
    expect(splitErrors(scope, ['oauth', 'oauth.scopes'])).toEqual({ fields: { 'oauth.scopes': 'Bad scope.' }, general: null });
    expect(splitErrors(scope, ['oauth'])).toEqual({ fields: { oauth: 'Bad scope.' }, general: null });
    const detail = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Invalid.', details: [{ path: '/oauth/tokenUrl', message: 'must be https' }] });
    expect(splitErrors(detail, ['oauth', 'oauth.tokenUrl'])).toEqual({ fields: { 'oauth.tokenUrl': 'must be https' }, general: null });
    const custom = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Taken.', field: 'customFields[0].key' });
    expect(splitErrors(custom, ['customFields'])).toEqual({ fields: { customFields: 'Taken.' }, general: null });
  });

  it('shows a refusal for a field the page does not have as a general message', () => {
    const error = new ApiError({ status: 422, code: 'PIPELINE_NOT_FOUND', message: 'The pipeline no longer exists.', field: 'pipelineId' });
    expect(splitErrors(error, ['slug'])).toEqual({ fields: {}, general: 'The pipeline no longer exists.' });
  });

  it('places validation details by path and keeps the message when some stay unplaced', () => {
    const error = new ApiError({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'The request body is not valid.',
      details: [
        { path: '/title', message: 'must be at least 1 character' },
        { path: '/other', message: 'unknown' },
      ],
    });
    expect(splitErrors(error, ['title'])).toEqual({ fields: { title: 'must be at least 1 character' }, general: 'The request body is not valid.' });
    const placedAll = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'x', details: [{ path: '/title', message: 'too long' }] });
    expect(splitErrors(placedAll, ['title'])).toEqual({ fields: { title: 'too long' }, general: null });
  });

  it('places a nested detail on the nested input when the page has one', () => {
    const error = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Invalid.', details: [{ path: '/branding/primaryColor', message: 'must be a hex color' }] });
    expect(splitErrors(error, ['branding.primaryColor'])).toEqual({ fields: { 'branding.primaryColor': 'must be a hex color' }, general: null });
  });

  it('shows any other error as it is', () => {
    expect(splitErrors(new Error('boom'), [])).toEqual({ fields: {}, general: 'boom' });
    expect(splitErrors(null, [])).toEqual({ fields: {}, general: null });
  });
});

describe('client-side checks', () => {
  it('asks for 10 characters and a plausible email', () => {
    expect(passwordProblem('')).toBe('Enter a password.');
    expect(passwordProblem('short')).toMatch(/10 characters/);
    expect(passwordProblem('long enough!')).toBeNull();
    expect(emailProblem('a@b')).toBeNull();
    expect(emailProblem('nope')).toMatch(/name@example.com/);
    expect(firstErrors({ a: null, b: 'bad', c: false })).toEqual({ b: 'bad' });
  });
});

describe('fieldError', () => {
  const refusal = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Options must be unique.', field: 'options.1' });

  it('gives the message to the field and its sub-paths', () => {
    expect(fieldError(refusal, 'options')).toBe('Options must be unique.');
    expect(fieldError(refusal, 'option')).toBeUndefined();
    expect(fieldError(new Error('x'), 'options')).toBeUndefined();
  });

  it('leaves to the form what no field claims', () => {
    expect(formLevelError(refusal, ['options'])).toBeNull();
    expect(formLevelError(refusal, ['key'])).toBe(refusal);
    expect(formLevelError(null, ['key'])).toBeNull();
  });
});
