import type { IncomingHttpHeaders } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, classifyInboundRequest, isJsonContentType, PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';

/**
 * The one MCP message answered without the SDK's per-request machinery: a plain `tools/call`.
 *
 * The SDK builds a `Server`, a transport, a web `Request` and `Response` and runs its zod checks
 * for every message of a stateless endpoint, which made an MCP tool call cost about three times
 * the Operator API's (docs/benchmarks.md). A tool call is almost all of an agent's traffic, so
 * `directToolCall` recognises the requests whose answer is already settled by the protocol (the
 * SDK would accept them and run our `tools/call` handler) and the MCP handler answers those
 * itself, in the same words. Anything else, or anything unusual about a call (a batch, extra
 * `_meta`, a header the SDK would cross-check, an unknown revision), goes to the SDK unchanged.
 * `direct-call.test.ts` holds the two paths to the same answers, request by request.
 */
export interface DirectToolCall {
  id: string | number;
  name: string;
  arguments: Record<string, unknown> | undefined;
  /** The stateless 2026-07-28 revision (per-request `_meta` envelope), whose results carry `resultType` and `serverInfo`. */
  modern: boolean;
}

/** The modern revision this shortcut has been checked against; a newer one goes through the SDK until it is. */
const MODERN_REVISION = '2026-07-28';
const LEGACY_REVISIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
/** Names that the `Mcp-Name` header carries verbatim (no sentinel encoding to decode). */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** `params` holds exactly a name, optional object arguments and (modern only) the request envelope. */
function plainParams(params: unknown, modern: boolean): params is { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } {
  if (!isPlainObject(params) || typeof params.name !== 'string' || !PLAIN_NAME.test(params.name)) return false;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return false;
  for (const key of Object.keys(params)) {
    if (key === 'name' || key === 'arguments') continue;
    if (key !== '_meta' || !modern || !isPlainObject(params._meta)) return false;
    if (Object.keys(params._meta).some((metaKey) => !ENVELOPE_KEYS.has(metaKey))) return false;
  }
  return true;
}

/** What the SDK's classifier decided for a request of the shape `directToolCall` takes, reduced to what it acts on. */
type Era = 'legacy' | 'modern' | 'neither';

/** At most this many remembered decisions (then forgotten all at once), each for a key of at most MAX_KEY characters. */
const MAX_DECISIONS = 512;
const MAX_KEY = 2048;

/**
 * Reads plain `tools/call` requests. Which era a request belongs to is the SDK's own decision
 * (`classifyInboundRequest`, the call its handler makes), but that decision runs zod over the body
 * three times and validates the per-request envelope, about 5 µs of a call of 100. For the shape
 * taken here (exactly `jsonrpc`, `id`, `method: "tools/call"` and `params` of a name, object
 * arguments and at most the envelope's `_meta`) the classifier reads nothing but the three MCP
 * headers and `_meta` (its JSON-RPC schemas are loose about `params`, and `arguments` is never
 * read), so its decision is remembered per headers and envelope: an agent's client sends the same
 * ones on every call. Bounded in entries and key length, so no client can grow it.
 */
export function createDirectCallReader(): (headers: IncomingHttpHeaders, body: unknown) => DirectToolCall | undefined {
  const decisions = new Map<string, Era>();

  function eraOf(request: { protocolVersionHeader: string | undefined; mcpMethodHeader: string | undefined; mcpNameHeader: string | undefined }, body: Record<string, unknown>, meta: unknown): Era {
    const key = JSON.stringify([request.protocolVersionHeader ?? null, request.mcpMethodHeader ?? null, request.mcpNameHeader ?? null, meta ?? null]);
    const known = decisions.get(key);
    if (known !== undefined) return known;
    const route = classifyInboundRequest({ httpMethod: 'POST', ...request, body });
    const era: Era =
      route.kind === 'legacy' && route.reason === 'no-claim' ? 'legacy'
        : route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === MODERN_REVISION ? 'modern'
          : 'neither';
    if (key.length <= MAX_KEY) {
      if (decisions.size >= MAX_DECISIONS) decisions.clear();
      decisions.set(key, era);
    }
    return era;
  }

  /** The call when `body` is a plain `tools/call` request that the SDK would dispatch to our handler as is; otherwise undefined. */
  return function directToolCall(headers, body) {
    const accept = header(headers, 'accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    if (!isJsonContentType(header(headers, 'content-type') ?? null)) return undefined;
    if (!isPlainObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0') return undefined;
    const id = body.id;
    if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
    if (Object.keys(body).length !== 4 || !('params' in body)) return undefined;
    // The shape the remembered decisions rely on (see above), checked before one is looked up.
    if (!plainParams(body.params, true)) return undefined;
    const params = body.params;

    const protocolVersionHeader = header(headers, 'mcp-protocol-version');
    const mcpMethodHeader = header(headers, 'mcp-method');
    const mcpNameHeader = header(headers, 'mcp-name');
    const era = eraOf({ protocolVersionHeader, mcpMethodHeader, mcpNameHeader }, body, params._meta);

    if (era === 'legacy') {
      if (mcpMethodHeader !== undefined || mcpNameHeader !== undefined || params._meta !== undefined) return undefined;
      if (protocolVersionHeader !== undefined && !LEGACY_REVISIONS.includes(protocolVersionHeader)) return undefined;
      return { id: id as string | number, name: params.name, arguments: params.arguments, modern: false };
    }
    if (era === 'modern') {
      if (protocolVersionHeader !== MODERN_REVISION || mcpMethodHeader !== 'tools/call' || mcpNameHeader !== params.name) return undefined;
      return { id: id as string | number, name: params.name, arguments: params.arguments, modern: true };
    }
    return undefined;
  };
}
