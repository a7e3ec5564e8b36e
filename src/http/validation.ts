import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from './errors.js';
import { notFoundOf } from './path-ids.js';
import { addWireTextKeywords, annotateWireText } from './wire-text.js';

/**
 * Two validators: bodies are checked strictly (no type coercion: "1" is not a number,
 * unknown fields are errors), while query strings and path params are coerced from text.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    // verbose exposes each failing schema, so a schema's `errorMessage` can replace Ajv's wording.
    verbose: true,
    strict: false,
  });
  addFormats.default(ajv);
  addWireTextKeywords(ajv);
  return ajv;
}

/**
 * Every schema is compiled with the wire-text rule (wire-text.ts). A path parameter that
 * breaks its schema answers the feature's 404 when it has one (path-ids.ts): such an id
 * cannot exist, so nothing is looked up.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const validate = ajv.compile(annotateWireText(schema) as object) as ValidateFunction;
    if (httpPart !== 'params') return validate;
    return (data: unknown) => {
      if (validate(data)) return true;
      const notFound = notFoundOf(validate.errors);
      return notFound ? { error: notFound } : false;
    };
  };
}

/**
 * Ajv errors as `{path, message}` pairs a person can act on. A schema may carry
 * `errorMessage: "…"` (e.g. on a pattern) to say in plain words what is expected.
 */
export function describeValidationErrors(errors: ErrorObject[], part: string): ErrorDetail[] {
  // Text that breaks the wire-text rule is the whole story of its field: a pattern or union
  // error on the same value would only repeat it less clearly.
  const textPaths = new Set(errors.filter((e) => e.keyword.startsWith('wireText')).map((e) => e.instancePath));
  const relevant = errors.filter((e) => e.keyword.startsWith('wireText') || !textPaths.has(e.instancePath));
  return relevant.map((error) => {
    let path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    let message = error.message ?? 'is invalid';
    const custom = (error.parentSchema as { errorMessage?: unknown } | undefined)?.errorMessage;
    if (typeof custom === 'string' && error.keyword !== 'required' && error.keyword !== 'additionalProperties' && !error.keyword.startsWith('wireText')) {
      message = custom;
    } else if (error.keyword === 'pattern') {
      message = 'has characters or a format that is not allowed here';
    } else if (error.keyword === 'required') {
      const missing = String((error.params as { missingProperty?: string }).missingProperty ?? '');
      path = path ? `${path}.${missing}` : missing;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      const extra = String((error.params as { additionalProperty?: string }).additionalProperty ?? '');
      path = path ? `${path}.${extra}` : extra;
      message = 'is not a known field';
    } else if (error.keyword === 'minProperties' && (error.params as { limit?: number }).limit === 1) {
      // A partial update with nothing in it (changes.ts): say what may be sent.
      const fields = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      message = `must name at least one field to change${fields.length > 0 ? `: ${fields.join(', ')}` : ''}`;
    } else if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      message = `must be one of: ${allowed.join(', ')}`;
    } else if (error.keyword === 'const') {
      message = `must be ${JSON.stringify((error.params as { allowedValue?: unknown }).allowedValue)}`;
    }
    return { path: path || part, message };
  });
}

/** Drops the noise Ajv adds for unions (anyOf) when a more specific error exists. */
export function summarize(details: ErrorDetail[]): string {
  const useful = details.filter((d) => d.message !== 'must match a schema in anyOf' && d.message !== 'must match exactly one schema in oneOf');
  // A union's branches that carry one errorMessage say it once.
  const list = [...new Set((useful.length > 0 ? useful : details).map((d) => `${d.path} ${d.message}`))].slice(0, 3);
  return `Invalid request: ${list.join('; ')}${details.length > 3 ? '; …' : ''}.`;
}
