import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { simplifyForSerialization } from './serialization.js';

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
