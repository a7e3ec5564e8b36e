import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { ErrorBody } from './envelope.js';
import { createSerializerCompiler, simplifyForSerialization } from './serialization.js';

describe('simplifyForSerialization', () => {
  const schema = Type.Object({
    nullableText: Type.Union([Type.String(), Type.Null()]),
    method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
    branding: Type.Union([Type.Object({ name: Type.String() }), Type.Null()]),
    mixed: Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
  });

  it('rewrites nullable primitives, const unions and nullable objects', () => {
    const simplified = simplifyForSerialization(schema) as { properties: Record<string, Record<string, unknown>> };
    expect(simplified.properties.nullableText).toEqual({ type: ['string', 'null'] });
    expect(simplified.properties.method).toEqual({ type: 'string', enum: ['GET', 'POST'] });
    expect(simplified.properties.branding).toMatchObject({ type: 'object', nullable: true });
    expect(simplified.properties.mixed?.anyOf).toHaveLength(3);
    // The original, used for validation and OpenAPI, is untouched.
    expect(schema.properties.nullableText.anyOf).toHaveLength(2);
  });

  it.each([
    { nullableText: null, method: 'GET', branding: null, mixed: 'a' },
    { nullableText: 'text with "quotes" and ü', method: 'POST', branding: { name: 'Acme' }, mixed: 3 },
    { nullableText: '', method: 'GET', branding: { name: '' }, mixed: false },
  ])('serializes %o exactly as JSON.stringify does', (value) => {
    const serialize = fastJson(simplifyForSerialization(schema) as never);
    expect(JSON.parse(serialize(value))).toEqual(value);
  });
});

describe('the serializer compiler', () => {
  it('compiles each schema object once, however many routes and statuses share it', () => {
    const compile = createSerializerCompiler();
    const request = (schema: unknown, httpStatus: string, url: string) => ({ schema, method: 'GET', url, httpStatus });
    const first = compile(request(ErrorBody, '404', '/a'));
    expect(compile(request(ErrorBody, '422', '/b'))).toBe(first);
    const other = compile(request(Type.Object({ ok: Type.Boolean() }), '200', '/a'));
    expect(other).not.toBe(first);
    expect(other({ ok: true })).toBe('{"ok":true}');
    expect(JSON.parse(first({ success: false, error: 'Nope.', code: 'NOT_FOUND', requestId: 'req_1' }))).toEqual({ success: false, error: 'Nope.', code: 'NOT_FOUND', requestId: 'req_1' });
  });
});
