import { describe, expect, it } from 'vitest';
import { blankDraft, blankParameter, checks, comparable, moved, nameProblemsAsTyped, toolBody, type ToolDraft } from './draft';

const draft = (overrides: Partial<ToolDraft> = {}): ToolDraft => ({
  ...blankDraft(),
  name: 'weather_lookup',
  description: 'Looks up the weather.',
  endpoint: 'https://api.example.com/weather',
  ...overrides,
});
const param = (name: string, extra: Partial<ReturnType<typeof blankParameter>> = {}) => ({ ...blankParameter(), name, ...extra });

describe('the tool editor draft', () => {
  it('refuses the reserved name and a repeated one as typed, in the API\'s words, and leaves an empty name for Save', () => {
    const d = draft({ parameters: [param('city'), param('_svc_context'), param('city'), param(''), param('2nd')] });
    expect(nameProblemsAsTyped(d)).toEqual({
      'parameters.1.name': 'The name cannot be _svc_context: the service uses that key for call context.',
      'parameters.2.name': 'The name repeats the parameter name "city".',
      'parameters.4.name': 'The name must start with a letter or _, then letters, digits or _ (at most 64 characters).',
    });
    expect(checks(d)['parameters.3.name']).toBe('Give the parameter a name, or remove it.');
  });

  it('sends every field; the key header only with api_key, items only on arrays', () => {
    const d = draft({
      authType: 'bearer',
      apiKeyHeader: 'X-Key',
      parameters: [param(' city ', { required: true, items: 'number' }), param('days', { type: 'array', items: 'number' }), param('tags', { type: 'array' })],
    });
    expect(toolBody(d)).toEqual({
      name: 'weather_lookup',
      description: 'Looks up the weather.',
      endpoint: 'https://api.example.com/weather',
      method: 'POST',
      authType: 'bearer',
      apiKeyHeader: null,
      category: 'other',
      parameters: [
        { name: 'city', type: 'string', description: '', required: true },
        { name: 'days', type: 'array', description: '', required: false, items: 'number' },
        { name: 'tags', type: 'array', description: '', required: false },
      ],
    });
    expect(toolBody({ ...d, authType: 'api_key' }).apiKeyHeader).toBe('X-Key');
  });

  it('moves a row up or down, and not past either end; row keys do not count as changes', () => {
    expect(moved(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moved(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moved(['a', 'b'], 0, -1)).toEqual(['a', 'b']);
    expect(moved(['a', 'b'], 1, 1)).toEqual(['a', 'b']);
    expect(comparable(draft({ parameters: [param('a')] }))).toBe(comparable(draft({ parameters: [param('a')] })));
  });
});
