import { describe, expectTypeOf, it } from 'vitest';
import type { PublicFormConfig as ServerConfig, SubmitResult as ServerResult } from '../../src/forms/schema.js';
import type { PublicFormConfig, SubmitBody, SubmitResult } from './types.js';

/** The browser's copy of the wire types must accept what the server declares (checked by `npm run typecheck`). */
describe('wire types', () => {
  it('match the server schema', () => {
    expectTypeOf<ServerConfig>().toExtend<PublicFormConfig>();
    expectTypeOf<ServerResult>().toExtend<SubmitResult>();
    expectTypeOf<SubmitBody>().toHaveProperty('_hp');
  });
});
