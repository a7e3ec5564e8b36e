import { describe, expect, it } from 'vitest';
import { conversion, displayValue, plural, safeNext } from './format';

describe('format helpers', () => {
  it('returns only to local paths after sign-in', () => {
    expect(safeNext('/forms/frm_1?x=1')).toBe('/forms/frm_1?x=1');
    expect(safeNext(null)).toBe('/');
    expect(safeNext('https://evil.example')).toBe('/');
    expect(safeNext('//evil.example')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
    // An MCP host's consent page, query and all.
    const authorize = '/authorize?response_type=code&client_id=https%3A%2F%2Fclaude.ai%2Fmeta&redirect_uri=https%3A%2F%2Fclaude.ai%2Fcb&state=a%2Fb';
    expect(safeNext(authorize)).toBe(authorize);
    // The browser's address (under /app) is taken too, as the router's path.
    expect(safeNext(`/app${authorize}`)).toBe(authorize);
    expect(safeNext('/app')).toBe('/');
    expect(safeNext('/app//evil.example')).toBe('/');
    expect(safeNext('/app/\\evil.example')).toBe('/');
    // Control characters browsers drop would turn these into //evil.example.
    expect(safeNext('/\t/evil.example')).toBe('/');
    expect(safeNext('/\n/evil.example')).toBe('/');
    expect(safeNext('javascript:alert(1)')).toBe('/');
    expect(safeNext('')).toBe('/');
  });

  it('shows conversion as a percentage, a dash without views', () => {
    expect(conversion(0, 0)).toBe('—');
    expect(conversion(200, 3)).toMatch(/^1[.,]5%$/);
    expect(conversion(3, 3)).toBe('100%');
  });

  it('shows values and counts as people read them', () => {
    expect(displayValue(true)).toBe('Yes');
    expect(displayValue(false)).toBe('No');
    expect(displayValue('')).toBe('—');
    expect(displayValue(4200)).toBe('4200');
    expect(plural(1, 'view')).toBe('1 view');
    expect(plural(2, 'view')).toBe('2 views');
  });
});
