import { AppError, type ErrorDetail } from '../http/errors.js';
import type { ToolCallsTable } from '../db/tables.js';
import type { Clock } from '../lib/clock.js';
import { newTimeOrderedId } from '../lib/ids.js';
import { CREDENTIAL_FIELDS } from '../tools/definition.js';
import type { ToolsService } from '../tools/service.js';
import { checkArguments, summarizeArgumentProblems } from './arguments.js';
import { callNotLogged, type CallLog } from './call-log.js';
import { buildRequestHeaders, type ToolHttpClient, type ToolHttpOutcome } from '../net/http-client.js';
import { authHeaders, parseArguments } from './invoker.js';
import type { Credentials, ToolTestResult } from './schema.js';
import type { Tokens } from '../connections/tokens.js';

/** What stands for the calling agent and organization in a test call's `_svc_context`. */
export const TEST_CONTEXT = { agentId: 'agt_test', orgId: 'org_test' } as const;

/** A test call's log row: the placeholders its `_svc_context` carried stand for the org and agent; there is no installation or revision. */
function testCallRow(callId: string, toolId: string, timestamp: string, outcome: ToolHttpOutcome): ToolCallsTable {
  return {
    id: callId,
    org_id: TEST_CONTEXT.orgId,
    agent_id: TEST_CONTEXT.agentId,
    tool_id: toolId,
    revision_id: '',
    installation_id: '',
    path: 'test',
    outcome: outcome.ok ? 'OK' : outcome.code,
    http_status: 'status' in outcome ? outcome.status : null,
    duration_ms: outcome.durationMs,
    request_bytes: outcome.requestBytes,
    response_bytes: outcome.responseBytes,
    created_at: timestamp,
    conversation_id: null,
  };
}

/** The credential part of an auth header as the console shows it: the scheme stays, the secret does not. */
function mask(name: string, value: string): string {
  if (name.toLowerCase() === 'authorization') {
    const space = value.indexOf(' ');
    return space > 0 ? `${value.slice(0, space)} ********` : '********';
  }
  return '********';
}

/**
 * `POST /api/dev/tools/{id}/test`: the developer's working copy (draft, or with unpublished
 * changes) called with the arguments and test credentials given, through the invoker's own
 * pieces (argument check, body and signature, auth headers, the shared HTTP client with its
 * address check and limits). The credentials live only for this request. A call that was sent
 * is logged with path `test` (no payloads, like every call) before it is answered: it belongs to no organization,
 * agent, installation or revision, so only the developer's own call list shows it, and the
 * daily statistics leave it out.
 */
export function createToolTester(deps: {
  tools: Pick<ToolsService, 'get' | 'connectionTarget'>;
  http: ToolHttpClient;
  callLog: Pick<CallLog, 'write'>;
  clock: Clock;
  userAgent: string;
  /** An oauth2 tool is tested with the developer's own test account (connections/tokens.ts). */
  tokens: Pick<Tokens, 'accessToken' | 'afterRejection'>;
}) {
  const { tools, http, callLog, clock, userAgent, tokens } = deps;

  /** The test account's bearer token, and a way to a newer one after a 401 (the invoker's one retry, the same here). */
  async function testAccount(developerId: string, toolId: string, name: string) {
    const target = await tools.connectionTarget(developerId, toolId);
    const owner = { kind: 'developer' as const, developerId, toolId };
    const subject = { name };
    const token = await tokens.accessToken(owner, target, subject);
    return { token, renew: () => tokens.afterRejection(owner, target, subject, token) };
  }

  async function test(developerId: string, toolId: string, input: { arguments?: unknown; credentials?: Credentials | undefined }): Promise<ToolTestResult> {
    const tool = await tools.get(developerId, toolId);
    const parsed = parseArguments(input.arguments);
    const checked = parsed.ok
      ? checkArguments(tool.parameters, parsed.value)
      : { ok: false as const, details: [{ path: 'arguments', message: 'the arguments string is not valid JSON; send a JSON object keyed by parameter name' }] };
    if (!checked.ok) throw new AppError('INVALID_ARGUMENTS', summarizeArgumentProblems(checked.details), { details: checked.details });

    const wanted = CREDENTIAL_FIELDS[tool.authType];
    const given = Object.fromEntries(Object.entries(input.credentials ?? {}).filter(([, value]) => value !== undefined)) as Partial<Record<keyof Credentials, string>>;
    const problems: ErrorDetail[] = [
      ...Object.keys(given).filter((field) => !wanted.includes(field as keyof Credentials)).map((field) => ({ path: `credentials.${field}`, message: `is not taken by authType ${tool.authType}${wanted.length ? `, which takes ${wanted.join(' and ')}` : ''}` })),
      ...wanted.filter((field) => given[field] === undefined).map((field) => ({ path: `credentials.${field}`, message: `is required to test a tool with authType ${tool.authType}` })),
    ];
    if (problems.length > 0) {
      throw new AppError('VALIDATION_ERROR', `Invalid request: ${problems.map((d) => `${d.path} ${d.message}`).join('; ')}.`, { details: problems });
    }

    const now = clock.now();
    const timestamp = now.toISOString();
    const callId = newTimeOrderedId('call', timestamp);
    const bodyText = JSON.stringify({ ...checked.value, _svc_context: { ...TEST_CONTEXT, timestamp, callId, toolId: tool.id } });
    const body = Buffer.from(bodyText);
    const account = tool.authType === 'oauth2' ? await testAccount(developerId, tool.id, tool.name) : undefined;
    const auth = account ? { Authorization: `Bearer ${account.token.value}` } : authHeaders({ live: { definition: tool } as never, credentials: given }, Math.floor(now.getTime() / 1000), body) ?? {};
    const secretHeaders = new Set(Object.keys(auth).filter((name) => !/^x-svc-/i.test(name)).map((name) => name.toLowerCase()));
    const sentHeaders = buildRequestHeaders(userAgent, auth);
    const shownHeaders = Object.fromEntries(Object.entries(sentHeaders).map(([name, value]) => [name, secretHeaders.has(name.toLowerCase()) ? mask(name, value) : value]));

    let outcome = await http.send({ method: tool.method, url: tool.endpoint, headers: auth, body });
    if (account && !outcome.ok && outcome.code === 'TOOL_HTTP_ERROR' && outcome.status === 401) {
      const fresh = await account.renew();
      outcome = await http.send({ method: tool.method, url: tool.endpoint, headers: { Authorization: `Bearer ${fresh.value}` }, body });
    }
    // Answered only once its row is committed, like every logged call (invoker.ts).
    try {
      await callLog.write(testCallRow(callId, tool.id, timestamp, outcome));
    } catch (error) {
      throw callNotLogged(callId, outcome.ok || outcome.code !== 'TOOL_BLOCKED', error);
    }
    const response = outcome.ok
      ? { ok: true as const, status: outcome.status, durationMs: outcome.durationMs, result: outcome.json }
      : {
        ok: false as const,
        code: outcome.code,
        message: outcome.message,
        durationMs: outcome.durationMs,
        ...('status' in outcome ? { status: outcome.status } : {}),
        ...('body' in outcome && outcome.body !== undefined ? { body: outcome.body } : {}),
      };
    return { callId, request: { method: tool.method, url: tool.endpoint, headers: shownHeaders, body: bodyText }, response };
  }

  return { test };
}

export type ToolTester = ReturnType<typeof createToolTester>;
