import { describe, expect, it } from 'vitest';
import { parseArguments, sampleArguments } from './arguments';

describe('test call arguments', () => {
  it('reads a JSON object, and nothing as no arguments', () => {
    expect(parseArguments('{"weightKg": 2, "country": "DE"}')).toEqual({ ok: true, value: { weightKg: 2, country: 'DE' } });
    expect(parseArguments('  ')).toEqual({ ok: true, value: undefined });
  });

  it('says what is wrong with anything else', () => {
    const broken = parseArguments('{"weightKg": }');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^This is not valid JSON/);
    expect(parseArguments('[1, 2]')).toEqual({ ok: false, message: 'Write a JSON object, like {"name": "value"}.' });
    expect(parseArguments('"text"').ok).toBe(false);
    expect(parseArguments('null').ok).toBe(false);
  });

  it('starts from the required parameters', () => {
    expect(JSON.parse(sampleArguments([
      { name: 'weightKg', type: 'number', description: '', required: true },
      { name: 'note', type: 'string', description: '', required: false },
      { name: 'tags', type: 'array', description: '', required: true, items: 'string' },
    ]))).toEqual({ weightKg: 0, tags: [] });
    expect(sampleArguments([])).toBe('{}');
  });
});
