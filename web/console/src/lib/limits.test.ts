import { describe, expect, it } from 'vitest';
import { limitState } from './limits';

describe('limitState', () => {
  it('says nothing below 80 % of a limit, near from 80 %, reached at the limit and past it', () => {
    expect(limitState(undefined)).toBe('none');
    expect(limitState({ limit: 10, used: 7 })).toBe('none');
    expect(limitState({ limit: 10, used: 8 })).toBe('near');
    expect(limitState({ limit: 10, used: 10 })).toBe('reached');
    expect(limitState({ limit: 10, used: 12 })).toBe('reached');
    expect(limitState({ limit: 0, used: 0 })).toBe('reached');
    expect(limitState({ limit: 100, used: 79 })).toBe('none');
  });
});
