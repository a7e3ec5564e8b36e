import type { ConversationMessagesTable, ConversationsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { AppError } from '../http/errors.js';
import { formatTools } from '../invocation/formats.js';
import type { InstallationsService } from '../invocation/installations-service.js';
import type { Invoker } from '../invocation/invoker.js';
import { isoNow, utcDay, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { ModelsService } from '../models/service.js';
import type { AgentsService } from '../orgs/agents-service.js';
import type { OrgsService } from '../orgs/service.js';
import { budgetUsedUp, conversationNotFound, noModel, turnInProgress } from './errors.js';
import { runLoop, type LoopEvent, type StepRecord } from './loop.js';
import type { ModelClient } from './model-client.js';
import { historyOf, presentConversation, presentMessage } from './present.js';
import { providerFailure } from './provider-errors.js';
import type { ConversationsRepo } from './repo.js';
import { MAX_MESSAGES, type ConversationCreated, type ConversationOrigin, type ConversationListQuery, type ConversationMessage, type Transcript, type TurnResult } from './schema.js';

/** What a streamed turn says as it goes (routes.ts writes each as a Server-Sent Event). */
export type TurnEvent =
  | LoopEvent
  /** `answerId`: the id the turn's first assistant message is saved with (the UI message stream's message id). */
  | { type: 'start'; conversationId: string; message: ConversationMessage; answerId: string }
  /** `retryAfter`: the provider's Retry-After with its 429 (the stream's status is already sent, so it travels here). */
  | { type: 'error'; code: string; message: string; retryAfter?: string }
  | ({ type: 'finish'; status: 'complete' | 'error' | 'cancelled' } & TurnResult);

export interface ConversationsServiceDeps {
  repo: ConversationsRepo;
  /** A turn's messages and the conversation's totals are written together. */
  transact: Transact<{ conversations: ConversationsRepo }>;
  agents: Pick<AgentsService, 'get'>;
  /** The organization's daily token budget, checked before each turn. */
  orgs: Pick<OrgsService, 'dailyTokenBudget'>;
  models: Pick<ModelsService, 'connection'>;
  installations: Pick<InstallationsService, 'agentTools'>;
  invoker: Pick<Invoker, 'invoke'>;
  modelClient: ModelClient;
  clock: Clock;
  /**
   * How long a turn may hold its conversation: past it, a claim is one a node never released (it
   * died mid-turn). services.ts derives it from the longest turn the limits allow.
   */
  turnLimitMs: number;
}

/**
 * Agent conversations: a conversation belongs to one agent of the organization; each message the
 * user sends is one turn of the model loop (loop.ts), saved with every assistant answer and tool call.
 */
export function createConversationsService(deps: ConversationsServiceDeps) {
  const { repo, transact, agents, orgs, models, installations, invoker, modelClient, clock } = deps;

  async function found(orgId: string, id: string): Promise<ConversationsTable> {
    const row = await repo.findConversation(orgId, id);
    if (!row) throw conversationNotFound();
    return row;
  }

  async function agentWithModel(orgId: string, agentId: string) {
    const agent = await agents.get(orgId, agentId);
    if (!agent.model) throw noModel(agent.name);
    return { ...agent, model: agent.model };
  }

  async function create(orgId: string, agentId: string, source: 'api' | 'console'): Promise<ConversationCreated> {
    await agentWithModel(orgId, agentId);
    return createIn({ conversations: repo }, orgId, agentId, source, { pageUrl: null, utm: null });
  }

  /**
   * A new conversation written through `repos` (a caller's transaction: the chat widget writes its session
   * with it). The caller has checked the agent and its model, outside the transaction.
   */
  async function createIn(repos: { conversations: ConversationsRepo }, orgId: string, agentId: string, source: 'api' | 'console' | 'widget', origin: ConversationOrigin): Promise<ConversationCreated> {
    const now = isoNow(clock);
    const row: ConversationsTable = {
      id: newId('conv'), org_id: orgId, agent_id: agentId, source,
      message_count: 0, input_tokens: 0, output_tokens: 0, turn_started_at: null, created_at: now, updated_at: now,
      page_url: origin.pageUrl, utm: origin.utm === null ? null : JSON.stringify(origin.utm),
    };
    await repos.conversations.insertConversation(row);
    return { id: row.id, agentId, createdAt: now };
  }

  /** The tokens the agent's widget conversations used today (UTC): the chat widget's per-agent budget's count. */
  const widgetTokensUsedToday = (agentId: string) => repo.widgetTokensUsedOn(agentId, utcDay(clock));

  async function list(orgId: string, query: ConversationListQuery) {
    const limit = query.limit ?? 20;
    const rows = await repo.listConversations(orgId, { agentId: query.agentId, limit, after: decodeCursor(query.cursor) });
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentConversation);
  }

  async function get(orgId: string, id: string): Promise<Transcript> {
    const row = await found(orgId, id);
    return { ...presentConversation(row), messages: (await repo.messages(id)).map(presentMessage) };
  }

  /**
   * The organization's daily token budget (an owner sets it): a turn starts only while the day's count is
   * under it. A turn under way is not stopped when it passes the budget (its tokens are known only as each
   * model request ends, and a half-answered question helps nobody): it finishes, and the next one is refused.
   */
  async function checkBudget(orgId: string): Promise<void> {
    const budget = await orgs.dailyTokenBudget(orgId);
    if (budget === null) return;
    const now = clock.now();
    const used = await repo.tokensUsedOn(orgId, utcDay(clock));
    if (used >= budget) throw budgetUsedUp(budget, used, now);
  }

  /**
   * Checks and claims the conversation for one turn; the caller then runs it (JSON or stream).
   * Refusals come from here, before anything is streamed: 404, 409 (no model, full, busy).
   */
  async function startTurn(orgId: string, id: string, content: string) {
    const before = await found(orgId, id);
    const agent = await agentWithModel(orgId, before.agent_id);
    if (before.message_count >= MAX_MESSAGES) {
      throw new AppError('CONFLICT', `This conversation has ${before.message_count} messages, the most one may have (${MAX_MESSAGES}). Start a new conversation (POST /api/org/agents/${before.agent_id}/conversations).`);
    }
    await checkBudget(orgId);
    const startedAt = isoNow(clock);
    const staleBefore = new Date(clock.now().getTime() - deps.turnLimitMs).toISOString();
    if (!(await repo.claimTurn(orgId, id, startedAt, staleBefore))) {
      throw turnInProgress();
    }
    let released = false;
    const release = async () => {
      if (!released) await repo.releaseTurn(orgId, id);
      released = true;
    };
    try {
      // Read again under the claim: no other turn can add messages now.
      const conversation = await found(orgId, id);
      const history = await repo.messages(id);
      const exported = formatTools(await installations.agentTools(orgId, agent.id), 'openai');
      const connection = await models.connection(orgId, agent.model.providerId);
      const userRow = messageRow(conversation.id, conversation.message_count, startedAt, { role: 'user', content });

      async function run(options: { stream: boolean; signal: AbortSignal; emit?: (event: TurnEvent) => void }): Promise<TurnResult & { status: 'complete' | 'error' | 'cancelled'; failure?: AppError }> {
        const emit = options.emit ?? (() => {});
        const answerId = newId('msg');
        emit({ type: 'start', conversationId: id, message: presentMessage(userRow), answerId });
        try {
          const outcome = await runLoop({
            model: modelClient.model(connection, agent.model.model),
            instructions: agent.model.instructions,
            temperature: agent.model.temperature,
            maxToolRounds: agent.model.maxToolRounds,
            history: [...historyOf(history), { role: 'user', content }],
            tools: exported,
            invoke: (name, args) => invoker.invoke({ orgId, agentId: agent.id, name, arguments: args, path: 'conversation', conversationId: id }),
            signal: options.signal,
            stream: options.stream,
            emit,
          });
          const rows = [userRow];
          const add = (fields: Partial<ConversationMessagesTable> & { role: string }) => {
            const first = fields.role === 'assistant' && !rows.some((row) => row.role === 'assistant');
            rows.push(messageRow(id, conversation.message_count + rows.length, isoNow(clock), { ...(first ? { id: answerId } : {}), ...fields }));
          };
          for (const step of outcome.steps) addStep(add, step);
          let failure: AppError | undefined;
          if (outcome.status === 'cancelled') {
            add({ role: 'assistant', content: outcome.partial, status: 'cancelled' });
          } else if (outcome.status === 'error') {
            const said = providerFailure(outcome.error, connection.apiKey);
            failure = new AppError(said.code, said.message, said.retryAfter === undefined ? {} : { headers: { 'Retry-After': said.retryAfter } });
            // The text streamed before the failure stays in the transcript, marked as an error.
            add({ role: 'assistant', content: said.message, status: 'error', error_code: said.code });
            emit({ type: 'error', code: said.code, message: said.message, ...(said.retryAfter === undefined ? {} : { retryAfter: said.retryAfter }) });
          }
          const usage = { inputTokens: sum(outcome.steps, 'inputTokens'), outputTokens: sum(outcome.steps, 'outputTokens') };
          await transact(async (repos) => {
            await repos.conversations.appendMessages(orgId, id, rows, { ...usage, updatedAt: isoNow(clock) });
            // Counted on the day the turn ends, with its messages: the budget never counts a turn that was not saved.
            const tokens = usage.inputTokens + usage.outputTokens;
            if (tokens > 0) await repos.conversations.addTokenUsage(orgId, utcDay(clock), tokens);
            // A widget conversation's tokens count against its agent's widget budget too (chat/).
            if (tokens > 0 && conversation.source === 'widget') await repos.conversations.addWidgetTokenUsage(orgId, conversation.agent_id, utcDay(clock), tokens);
          });
          released = true;
          const result = { conversationId: id, messages: rows.map(presentMessage), usage, status: outcome.status, ...(failure ? { failure } : {}) };
          emit({ type: 'finish', conversationId: id, messages: result.messages, usage, status: outcome.status });
          return result;
        } finally {
          await release();
        }
      }
      return { run, release };
    } catch (error) {
      await release();
      throw error;
    }
  }

  return { create, createIn, widgetTokensUsedToday, list, get, startTurn };
}

export type ConversationsService = ReturnType<typeof createConversationsService>;

function sum(steps: StepRecord[], field: 'inputTokens' | 'outputTokens'): number {
  return steps.reduce((total, step) => total + step[field], 0);
}

const json = (value: unknown) => JSON.stringify(value ?? null);

function addStep(add: (fields: Partial<ConversationMessagesTable> & { role: string }) => void, step: StepRecord): void {
  add({ role: 'assistant', content: step.text, input_tokens: step.inputTokens, output_tokens: step.outputTokens });
  for (const run of step.tools) {
    add({
      role: 'tool', tool_call_id: run.toolCallId, tool_name: run.name, tool_arguments: json(run.arguments), tool_result: json(run.result),
      tool_outcome: run.outcome, tool_duration_ms: run.durationMs, call_id: run.callId,
    });
  }
}

function messageRow(conversationId: string, seq: number, createdAt: string, fields: Partial<ConversationMessagesTable> & { role: string }): ConversationMessagesTable {
  return {
    id: newId('msg'), conversation_id: conversationId, seq, content: null, status: 'complete', error_code: null,
    tool_call_id: null, tool_name: null, tool_arguments: null, tool_result: null, tool_outcome: null, tool_duration_ms: null, call_id: null,
    input_tokens: null, output_tokens: null, created_at: createdAt, ...fields,
  };
}
