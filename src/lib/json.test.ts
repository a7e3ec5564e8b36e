import { describe, expect, it } from 'vitest';
import { jsonTooDeep, MAX_JSON_DEPTH } from './json.js';

const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('jsonTooDeep: nesting measured on the text, before anything parses it', () => {
  it(`takes ${MAX_JSON_DEPTH} levels, the document's own brackets counting as the first, and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    expect(jsonTooDeep(arrays(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonTooDeep(arrays(MAX_JSON_DEPTH + 1))).toEqual({});
    expect(jsonTooDeep(`{"a":${arrays(MAX_JSON_DEPTH - 1)}}`)).toBeUndefined();
    expect(jsonTooDeep(`{"a":${arrays(MAX_JSON_DEPTH)}}`)).toEqual({ key: 'a' });
    expect(jsonTooDeep('1')).toBeUndefined();
    expect(jsonTooDeep('')).toBeUndefined();
  });

  it('measures what JSON.parse builds, for objects and arrays mixed, and names the top-level key the deep value is under', () => {
    const mixed = (levels: number) => '{"x":['.repeat(levels / 2) + '1' + ']}'.repeat(levels / 2);
    expect(jsonTooDeep(mixed(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonTooDeep(`{"first":[1,{"a":2}],"name":"x","deep":${mixed(MAX_JSON_DEPTH)},"last":3}`)).toEqual({ key: 'deep' });
    expect(jsonTooDeep(` \n{"k\\"ey":${arrays(MAX_JSON_DEPTH)}}`)).toEqual({ key: 'k"ey' });
    // A root array has elements, not keys.
    expect(jsonTooDeep(`["a",${arrays(MAX_JSON_DEPTH)}]`)).toEqual({});
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', () => {
    const brackets = '[{'.repeat(100);
    expect(jsonTooDeep(JSON.stringify({ text: brackets, quoted: `say "${brackets}"`, slash: '\\', after: '\\"[[' }))).toBeUndefined();
    expect(jsonTooDeep(`{"a":"\\\\",${'"b":'}${arrays(MAX_JSON_DEPTH)}}`)).toEqual({ key: 'b' });
  });

  it('answers for a million levels without recursion, naming the key of the first value past the limit', () => {
    expect(jsonTooDeep(arrays(1_000_000))).toEqual({});
    expect(jsonTooDeep(`{"a":${arrays(1_000_000)},"b":${arrays(1_000_000)}}`)).toEqual({ key: 'a' });
  });

  it('takes another limit when asked', () => {
    expect(jsonTooDeep(arrays(3), 2)).toEqual({});
    expect(jsonTooDeep(arrays(2), 2)).toBeUndefined();
  });
});
