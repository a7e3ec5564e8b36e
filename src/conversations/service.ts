import type { ConversationMessagesTable, ConversationsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { serviceUnavailable } from '../http/database-unavailable.js';
import { AppError } from '../http/errors.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { formatTools } from '../invocation/formats.js';
import type { InstallationsService } from '../invocation/installations-service.js';
import type { Invoker } from '../invocation/invoker.js';
import { isoNow, utcDay, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { ModelsService } from '../models/service.js';
import type { AgentsService } from '../orgs/agents-service.js';
import type { OrgsService } from '../orgs/service.js';
import { reserveTurn, type TurnBudgets } from './budgets.js';
import { conversationNotFound, noModel, turnInProgress } from './errors.js';
import type { Handoff, HandoffRepos } from './handoff.js';
import { HELD, REQUEST_HUMAN, requestHumanTool } from './handoff-rules.js';
import { PENDING, runLoop, type LoopEvent, type PendingTool, type StepRecord } from './loop.js';
import { messageRow } from './message-row.js';
import type { ModelClient } from './model-client.js';
import { historyOf, presentConversation, presentMessage } from './present.js';
import { providerFailure } from './provider-errors.js';
import type { ConversationsRepo } from './repo.js';
import { MAX_MESSAGES, type ConversationCreated, type ConversationOrigin, type ConversationListQuery, type ConversationMessage, type Transcript, type TurnResult } from './schema.js';

/** What a streamed turn says as it goes (routes.ts writes each as a Server-Sent Event). */
export type TurnEvent =
  | LoopEvent
  /**
   * `message`: what began the turn, as saved: the user's message, or (resumeTurn) the pending call's answer.
   * `answerId`: the id the turn's first assistant message is saved with (the UI message stream's message id).
   */
  | { type: 'start'; conversationId: string; message: ConversationMessage; answerId: string }
  /** `retryAfter`: the provider's Retry-After with its 429 (the stream's status is already sent, so it travels here). */
  | { type: 'error'; code: string; message: string; retryAfter?: string }
  /** `delivered`: a person holds the conversation (or one was asked for): the message was stored, the model not called. */
  | ({ type: 'finish'; status: 'complete' | 'error' | 'cancelled' | 'delivered' } & TurnResult);

export interface ConversationsServiceDeps {
  repo: ConversationsRepo;
  /** A turn's messages and the conversation's totals are written together (with a hand-off the model asked for). */
  transact: Transact<HandoffRepos>;
  /** Hand-off (handoff.ts): a message while a person holds the conversation, the model's `request_human`, the live streams. */
  handoff: Pick<Handoff, 'hold' | 'publish' | 'planForTurn' | 'applyInTurn'>;
  agents: Pick<AgentsService, 'get'>;
  /** The organization's daily token budget, checked before each turn. */
  orgs: Pick<OrgsService, 'dailyTokenBudget'>;
  models: Pick<ModelsService, 'connection'>;
  installations: Pick<InstallationsService, 'agentTools'>;
  invoker: Pick<Invoker, 'invoke'>;
  modelClient: ModelClient;
  clock: Clock;
  /** Where a claim that could not be released (the database away) is noted: info, since the turn's own answer already warned. */
  log: { info(object: object, message: string): void };
  /**
   * How long a turn may hold its conversation: past it, a claim is one a node never released (it
   * died mid-turn). services.ts derives it from the longest turn the limits allow.
   */
  turnLimitMs: number;
}

/** What a turn may add to the agent's tools: tools the caller answers itself (the chat widget's lead capture). */
export interface TurnOptions {
  pendingTools?: PendingTool[];
  /** The agent's widget budget, for a turn of a widget conversation (chat/): reserved with the organization's. */
  widgetBudget?: number | null;
}

/** The answer to a pending call (loop.ts PENDING): its result, handed to the model, and its outcome in the transcript. */
export interface Resolution {
  toolCallId: string;
  result: unknown;
  outcome: string;
}

/**
 * Decides the answer to a pending call, under the turn's claim, from the conversation as saved: it may refuse
 * (throw: nothing is saved, the call stays pending) or do what the answer says first (a lead submitted).
 */
export type Decide = (conversation: Transcript) => Promise<Resolution>;

/**
 * A call still pending when the user writes again is answered `declined` first: every call the model made
 * needs a result in the history it is sent, and the user moved on without answering it.
 */
export const DECLINED = { result: { status: 'declined' }, outcome: 'DECLINED' } as const;

/**
 * Agent conversations: a conversation belongs to one agent of the organization; each message the
 * user sends is one turn of the model loop (loop.ts), saved with every assistant answer and tool call.
 */
export function createConversationsService(deps: ConversationsServiceDeps) {
  const { repo, transact, agents, orgs, models, installations, invoker, modelClient, clock, handoff } = deps;

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
      message_count: 0, input_tokens: 0, output_tokens: 0, turn_started_at: null, turn_reserved_tokens: 0, created_at: now, updated_at: now,
      page_url: origin.pageUrl, utm: origin.utm === null ? null : JSON.stringify(origin.utm),
      status: 'bot', assignee_id: null, handoff_requested_at: null, handoff_deadline_at: null,
    };
    await repos.conversations.insertConversation(row);
    return { id: row.id, agentId, createdAt: now };
  }

  /** The tokens the agent's widget conversations used today (UTC): the chat widget's per-agent budget's count. */
  const widgetTokensUsedToday = (agentId: string) => repo.widgetTokensUsedOn(agentId, utcDay(clock));

  /** `me`: the session's person (`userId`; undefined with an API key: 400). */
  async function list(orgId: string, query: ConversationListQuery, userId?: string) {
    const limit = query.limit ?? 20;
    if (query.assignee === 'me' && userId === undefined) throw new AppError('VALIDATION_ERROR', '`assignee=me` needs a signed-in member; with an API key, name the member (`assignee=usr_…`).', { field: 'assignee' });
    const assigneeId = query.assignee === undefined ? undefined : query.assignee === 'none' ? null : query.assignee === 'me' ? userId : query.assignee;
    const status = query.status === undefined ? undefined : query.status === 'open' ? ['bot', 'waiting', 'human'] : [query.status];
    const rows = await repo.listConversations(orgId, { agentId: query.agentId, status, assigneeId, limit, after: decodeCursor(query.cursor) });
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentConversation);
  }

  async function get(orgId: string, id: string): Promise<Transcript> {
    const row = await found(orgId, id);
    return { ...presentConversation(row), messages: (await repo.messages(id)).map(presentMessage) };
  }

  /**
   * Checks and claims the conversation for one turn; the caller then runs it (JSON or stream).
   * Refusals come from here, before anything is streamed: 404, 409 (no model, full, busy).
   */
  function startTurn(orgId: string, id: string, content: string, options: TurnOptions = {}) {
    return beginTurn(orgId, id, { content }, options);
  }

  /**
   * A turn without a user message: `decide` answers one of the conversation's pending calls (the chat widget's
   * lead card, once the visitor submits or declines it), and the model's next answer follows.
   */
  function resumeTurn(orgId: string, id: string, decide: Decide, options: TurnOptions = {}) {
    return beginTurn(orgId, id, { decide }, options);
  }

  async function beginTurn(orgId: string, id: string, opening: { content: string } | { decide: Decide }, turnOptions: TurnOptions) {
    const before = await found(orgId, id);
    const agent = await agentWithModel(orgId, before.agent_id);
    if (before.message_count >= MAX_MESSAGES) {
      throw new AppError('CONFLICT', `This conversation has ${before.message_count} messages, the most one may have (${MAX_MESSAGES}). Start a new conversation (POST /api/org/agents/${before.agent_id}/conversations).`);
    }
    // A person was asked for, or holds it: no model, no claim, no budget.
    if (HELD.has(before.status)) return heldTurn(orgId, before, opening);
    const startedAt = await claim(orgId, before, { org: await orgs.dailyTokenBudget(orgId), widget: turnOptions.widgetBudget ?? null });
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await claims.release(orgId, id, startedAt);
    };
    try {
      // Read again under the claim: no other turn can add messages now.
      const conversation = await found(orgId, id);
      if (HELD.has(conversation.status)) {
        // A person was asked for or took over between the first read and the claim.
        await release();
        return await heldTurn(orgId, conversation, opening);
      }
      const saved = await repo.messages(id);
      const exported = formatTools(await installations.agentTools(orgId, agent.id), 'openai');
      const connection = await models.connection(orgId, agent.model.providerId);
      // The pending calls this turn answers: the one decided (resumeTurn), or all of them, declined, when the user writes again.
      const resolved: Array<Resolution & { row: ConversationMessagesTable }> = 'decide' in opening ? [await decided(conversation, saved, opening.decide)] : pendingCalls(saved).map((row) => ({ row, toolCallId: row.tool_call_id ?? '', ...DECLINED }));
      const answered = resolved.map(({ row, result, outcome }) => ({ ...row, tool_result: json(result), tool_outcome: outcome }));
      const history = saved.map((row) => answered.find((done) => done.id === row.id) ?? row);
      const userRow = 'content' in opening ? messageRow(conversation.id, conversation.message_count, startedAt, { role: 'user', content: opening.content }) : undefined;
      const content = 'content' in opening ? [{ role: 'user' as const, content: opening.content }] : [];
      // Hand-off: in widget conversations of an agent whose hand-off is on, the model may ask for a person.
      const pendingTools = [...(turnOptions.pendingTools ?? []), ...(conversation.source === 'widget' && agent.handoff.enabled ? [requestHumanTool()] : [])];

      async function run(options: { stream: boolean; signal: AbortSignal; emit?: (event: TurnEvent) => void }): Promise<TurnRun> {
        const emit = options.emit ?? (() => {});
        const answerId = newId('msg');
        emit({ type: 'start', conversationId: id, message: presentMessage(userRow ?? answered[0]!), answerId });
        try {
          const outcome = await runLoop({
            model: modelClient.model(connection, agent.model.model),
            instructions: agent.model.instructions,
            temperature: agent.model.temperature,
            maxToolRounds: agent.model.maxToolRounds,
            history: [...historyOf(history), ...content],
            tools: exported,
            ...(pendingTools.length > 0 ? { pendingTools } : {}),
            invoke: (name, args) => invoker.invoke({ orgId, agentId: agent.id, name, arguments: args, path: 'conversation', conversationId: id }),
            signal: options.signal,
            stream: options.stream,
            emit,
          });
          const rows = userRow ? [userRow] : [];
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
            failure = new AppError(said.code, said.message, { ...(said.retryAfter === undefined ? {} : { headers: { 'Retry-After': said.retryAfter } }), ...(said.detail === undefined ? {} : { cause: said.detail }) });
            // The text streamed before the failure stays in the transcript, marked as an error.
            add({ role: 'assistant', content: said.message, status: 'error', error_code: said.code });
            emit({ type: 'error', code: said.code, message: said.message, ...(said.retryAfter === undefined ? {} : { retryAfter: said.retryAfter }) });
          }
          const usage = { inputTokens: sum(outcome.steps, 'inputTokens'), outputTokens: sum(outcome.steps, 'outputTokens') };
          // The model asked for a person (request_human, offered without execute: the turn ended at its call). The
          // call is answered here, and the request applied after the turn's rows, in its transaction.
          const asked = rows.filter((row) => row.role === 'tool' && row.tool_name === REQUEST_HUMAN && row.tool_outcome === PENDING);
          const request = asked.length > 0 && outcome.status === 'complete' ? await handoff.planForTurn(orgId, id, agent) : undefined;
          for (const row of request ? asked : []) Object.assign(row, { tool_result: json(request!.result), tool_outcome: 'OK' });
          const changed = await transact(async (repos) => {
            for (const row of answered) await repos.conversations.answerPendingCall(id, row.id, row.tool_result!, row.tool_outcome!);
            await repos.conversations.appendMessages(orgId, id, rows, { ...usage, updatedAt: isoNow(clock) });
            // Counted on the day the turn ends, with its messages: the budget never counts a turn that was not saved.
            const tokens = usage.inputTokens + usage.outputTokens;
            if (tokens > 0) await repos.conversations.addTokenUsage(orgId, utcDay(clock), tokens);
            // A widget conversation's tokens count against its agent's widget budget too (chat/).
            if (tokens > 0 && conversation.source === 'widget') await repos.conversations.addWidgetTokenUsage(orgId, conversation.agent_id, utcDay(clock), tokens);
            return request ? handoff.applyInTurn(repos, orgId, id, request) : undefined;
          }).catch((error: unknown) => {
            throw unsaved(error);
          });
          released = true;
          const added = changed ? [...rows, ...request!.rows] : rows;
          handoff.publish(orgId, id, added, changed);
          const result = { conversationId: id, messages: [...answered, ...added].map(presentMessage), usage, status: outcome.status, ...(failure ? { failure } : {}) };
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

  /**
   * A turn of a conversation a person was asked for or holds: the model is not called. A user's message is stored
   * when the turn runs (and told to the live streams); a lead card's answer (resumeTurn) is decided and stored here,
   * so its refusals come before anything is streamed. The turn says `start` (its message, as `answerId` too) and
   * `finish` with status `delivered`.
   */
  async function heldTurn(orgId: string, conversation: ConversationsTable, opening: { content: string } | { decide: Decide }) {
    const id = conversation.id;
    let answered: ConversationMessagesTable | undefined;
    if ('decide' in opening) {
      const saved = await repo.messages(id);
      const resolution = await decided(conversation, saved, opening.decide);
      answered = { ...resolution.row, tool_result: json(resolution.result), tool_outcome: resolution.outcome };
      await repo.answerPendingCall(id, answered.id, answered.tool_result!, answered.tool_outcome!);
    }
    async function run(options: { stream: boolean; signal: AbortSignal; emit?: (event: TurnEvent) => void }): Promise<TurnRun> {
      const emit = options.emit ?? (() => {});
      const row = answered ?? (await handoff.hold(orgId, id, (opening as { content: string }).content).catch((error: unknown) => {
        throw unsaved(error);
      }));
      // Released by a person between the check and the write: nothing stored, the message is to be sent again.
      if (!row) throw new AppError('CONFLICT', 'The conversation went back to the agent just now. Send the message again.');
      const message = presentMessage(row);
      emit({ type: 'start', conversationId: id, message, answerId: row.id });
      const result = { conversationId: id, messages: [message], usage: { inputTokens: 0, outputTokens: 0 }, status: 'delivered' as const };
      emit({ type: 'finish', ...result });
      return result;
    }
    return { run, release: async () => {} };
  }

  /**
   * Claims the conversation for a turn and reserves its budgets (budgets.ts), together: under a budget, in one
   * transaction with the budget's count locked. Without one, the claim alone (the common case: one statement).
   */
  async function claim(orgId: string, conversation: ConversationsTable, budgets: TurnBudgets): Promise<string> {
    const startedAt = isoNow(clock);
    const staleBefore = new Date(clock.now().getTime() - deps.turnLimitMs).toISOString();
    const claimed = budgets.org === null && budgets.widget === null
      ? await repo.claimTurn(orgId, conversation.id, startedAt, staleBefore)
      : await transact(async (repos) => {
        const scope = { orgId, agentId: conversation.agent_id, day: utcDay(clock), staleBefore, now: clock.now() };
        const reserved = await reserveTurn(repos.conversations, budgets, scope);
        return repos.conversations.claimTurn(orgId, conversation.id, startedAt, staleBefore, reserved);
      });
    if (!claimed) throw turnInProgress();
    return startedAt;
  }

  const claims = createClaimReleaser({ repo, log: deps.log, turnLimitMs: deps.turnLimitMs });

  /** Whether a person was asked for or holds the conversation (the model is then not called). */
  const isHeld = async (orgId: string, id: string) => HELD.has((await found(orgId, id)).status);

  /** Tells the Inbox a conversation started (a widget's: chat/), once its transaction committed. */
  async function announce(orgId: string, id: string): Promise<void> {
    const row = await repo.findConversation(orgId, id);
    if (row) handoff.publish(orgId, id, [], presentConversation(row));
  }

  /** A visitor's stream (chat/): where a message is, and the messages from a place on, without tool results. */
  const visibleMessages = {
    seqOf: (id: string, messageId: string) => repo.messageSeq(id, messageId),
    from: (id: string, seq: number, withArguments: string) => repo.visibleMessagesFrom(id, seq, withArguments),
  };

  return { create, createIn, widgetTokensUsedToday, list, get, startTurn, resumeTurn, isHeld, announce, visibleMessages, close: claims.close };
}

/**
 * A turn whose messages could not be saved: the database is away (503 SERVICE_UNAVAILABLE with Retry-After, as
 * every request the database fails), or a bug of ours (as it is: a 500 with its stack in the log).
 */
function unsaved(error: unknown): unknown {
  if (!isDatabaseUnavailable(error)) return error;
  return serviceUnavailable('The answer could not be saved: the service cannot reach its database right now. Send your message again in a few seconds.', error);
}

/** How often a claim the database did not take back is tried again. */
const RELEASE_RETRY_MS = 500;

/**
 * Releases turns' claims, and when the database is away, keeps trying in the background (every RELEASE_RETRY_MS,
 * until the claim would be stale anyway): the conversation is free again as soon as the database is back,
 * instead of answering "still answering" until the claim goes stale. Only the claim the turn made is released
 * (by its start time), never a later turn's.
 */
function createClaimReleaser(deps: { repo: Pick<ConversationsRepo, 'releaseTurn'>; log: ConversationsServiceDeps['log']; turnLimitMs: number }) {
  const retrying = new Map<string, ReturnType<typeof setTimeout>>();

  function retry(orgId: string, id: string, startedAt: string): void {
    const key = `${id} ${startedAt}`;
    const giveUpAt = Date.parse(startedAt) + deps.turnLimitMs;
    const attempt = () => {
      deps.repo.releaseTurn(orgId, id, startedAt).then(() => retrying.delete(key), () => {
        if (Date.now() >= giveUpAt || !retrying.has(key)) return retrying.delete(key);
        retrying.set(key, setTimeout(attempt, RELEASE_RETRY_MS).unref());
      });
    };
    retrying.set(key, setTimeout(attempt, RELEASE_RETRY_MS).unref());
  }

  async function release(orgId: string, id: string, startedAt: string): Promise<void> {
    try {
      await deps.repo.releaseTurn(orgId, id, startedAt);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      deps.log.info({ conversationId: id }, 'a conversation\'s turn could not be released: the database is unavailable; trying again until it is back');
      retry(orgId, id, startedAt);
    }
  }

  function close(): void {
    for (const timer of retrying.values()) clearTimeout(timer);
    retrying.clear();
  }

  return { release, close };
}

function pendingCalls(rows: readonly ConversationMessagesTable[]): ConversationMessagesTable[] {
  return rows.filter((row) => row.role === 'tool' && row.tool_outcome === PENDING);
}

/** The caller's answer to one pending call; a call that is not pending (never was, or answered already) is refused. */
async function decided(conversation: ConversationsTable, rows: readonly ConversationMessagesTable[], decide: Decide) {
  const resolution = await decide({ ...presentConversation(conversation), messages: rows.map(presentMessage) });
  const row = pendingCalls(rows).find((call) => call.tool_call_id === resolution.toolCallId);
  if (!row) throw new AppError('CONFLICT', 'That call is not waiting for an answer.');
  return { row, ...resolution };
}

export type ConversationsService = ReturnType<typeof createConversationsService>;

/** What a turn's run answers: its new messages, and how it ended. */
export type TurnRun = TurnResult & { status: 'complete' | 'error' | 'cancelled' | 'delivered'; failure?: AppError };

function sum(steps: StepRecord[], field: 'inputTokens' | 'outputTokens'): number {
  return steps.reduce((total, step) => total + step[field], 0);
}

const json = (value: unknown) => JSON.stringify(value ?? null);

function addStep(add: (fields: Partial<ConversationMessagesTable> & { role: string }) => void, step: StepRecord): void {
  add({ role: 'assistant', content: step.text, input_tokens: step.inputTokens, output_tokens: step.outputTokens });
  for (const run of step.tools) {
    add({
      // A pending call has no result until it is answered (resumeTurn): null keeps it out of the model's history till then.
      role: 'tool', tool_call_id: run.toolCallId, tool_name: run.name, tool_arguments: json(run.arguments), tool_result: run.outcome === PENDING ? null : json(run.result),
      tool_outcome: run.outcome, tool_duration_ms: run.durationMs, call_id: run.callId,
    });
  }
}
