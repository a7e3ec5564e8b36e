import type { ConversationMessagesTable, ConversationsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { AppError } from '../http/errors.js';
import type { Clock } from '../lib/clock.js';
import { randomBase62 } from '../lib/ids.js';
import type { AgentsService } from '../orgs/agents-service.js';
import { isOpen } from '../orgs/office-hours.js';
import type { AgentHandoff } from '../orgs/schema.js';
import type { WebhooksRepo } from '../webhooks/repo.js';
import { conversationNotFound } from './errors.js';
import { ASSIGNABLE, EVENT_TEXT, HELD, RELEASABLE, REQUESTABLE, requestPlan, timeoutPlan, type Person, type PlannedRow } from './handoff-rules.js';
import type { LiveEvents } from './live.js';
import { PENDING } from './loop.js';
import { messageRow } from './message-row.js';
import { presentConversation, presentMessage, type ConversationRow } from './present.js';
import type { ConversationsRepo } from './repo.js';
import { MAX_MESSAGES, type Conversation, type ConversationMessage } from './schema.js';
import { recordConversationEvent } from './webhook-events.js';

/**
 * Hand-off (issue 35): a conversation's status changes and a member's replies, each in one transaction with the
 * transcript rows it writes (events, the agent's notices, the lead card), its webhook event and the notification
 * hook; then told to the live streams (live.ts). Every change is a conditional update of the conversation's row
 * (handoff-rules.ts says from which statuses), so two requests, two members or two nodes never both make it:
 * the loser gets 409 CONFLICT, or (the deadline worker) skips it.
 */

export interface HandoffRepos {
  conversations: ConversationsRepo;
  webhooks: WebhooksRepo;
}

/** Who asks: a signed-in member (a person: named in the transcript), or an org API key ("Team"). */
export interface Actor {
  type: 'user' | 'api_key';
  id: string;
}

/** How an API key's replies are signed for the visitor. */
export const TEAM = 'Team';

export interface HandoffDeps<R extends HandoffRepos> {
  repo: ConversationsRepo;
  transact: Transact<R>;
  agents: Pick<AgentsService, 'get'>;
  clock: Clock;
  live: LiveEvents;
  /** The pending tool that offers the agent's lead card (the chat widget's `capture_lead`), or null when it has none. */
  leadTool: (orgId: string, agentId: string) => Promise<string | null>;
  /**
   * A person was asked for (the conversation now waits), in the same transaction: the composition root wires the
   * team's notifications here. Default: nothing.
   */
  onHandoffRequested?: ((repos: R, conversation: Conversation) => Promise<void>) | undefined;
  log: { warn(object: object, message: string): void };
}

export const HANDOFF_OFF = 'Talking to a person is not available in this chat.';
export const ALREADY_WITH_A_PERSON = 'A person was already asked for, or is already in this chat.';
const full = () => new AppError('CONFLICT', `This conversation has ${MAX_MESSAGES} messages, the most one may have. Start a new conversation.`);
const takeOverFirst = () => new AppError('CONFLICT', 'Take the conversation over first (POST /api/org/conversations/{id}/assign): a member replies only while the conversation is `human`.');

/** A planned row as a message of the conversation (its seq is set when appended). */
export function plannedRows(conversationId: string, planned: readonly PlannedRow[], now: string): ConversationMessagesTable[] {
  return planned.map((row) => messageRow(conversationId, 0, now, {
    role: row.role,
    content: row.content,
    author_id: row.author?.id ?? null,
    author_name: row.author?.name ?? null,
    event_data: row.event ? JSON.stringify(row.event) : null,
    ...(row.pendingTool
      ? { tool_call_id: `call_${randomBase62(24)}`, tool_name: row.pendingTool, tool_arguments: '{}', tool_result: null, tool_outcome: PENDING, tool_duration_ms: 0 }
      : {}),
  }));
}

export function createHandoff<R extends HandoffRepos>(deps: HandoffDeps<R>) {
  const { repo, transact, agents, clock, live } = deps;

  async function found(orgId: string, id: string): Promise<ConversationRow> {
    const row = await repo.findConversation(orgId, id);
    if (!row) throw conversationNotFound();
    return row;
  }

  /** The change as committed, to the live streams: the conversation when its state changed, and its new messages (tool calls aside). */
  function publish(orgId: string, conversationId: string, rows: readonly ConversationMessagesTable[], conversation?: Conversation): void {
    live.publish({ orgId, conversationId, ...(conversation ? { conversation } : {}), messages: rows.filter((row) => row.role !== 'tool').map(presentMessage) });
  }

  /** The effects of a request that made the conversation wait, in its transaction: the webhook event and the hook. */
  async function requested(repos: R, orgId: string, conversation: Conversation): Promise<void> {
    await recordConversationEvent(repos, 'conversation.handoff_requested', { orgId, ...conversation }, conversation.handoffRequestedAt ?? clock.now().toISOString());
    if (deps.onHandoffRequested) await deps.onHandoffRequested(repos, conversation);
  }

  /**
   * Appends `rows` and applies `change` to the conversation in one transaction, then `effects` with the conversation
   * as committed; published once committed. Undefined when the conversation was not in a status `change` allows.
   */
  async function commit(orgId: string, id: string, rows: ConversationMessagesTable[], change: { set?: Partial<ConversationsTable>; when: { statuses?: readonly string[]; deadlineBefore?: string } }, effects?: (repos: R, conversation: Conversation) => Promise<void>) {
    const now = clock.now().toISOString();
    const done = await transact(async (repos) => {
      const updated = await repos.conversations.append(orgId, id, rows, { updatedAt: now, ...change });
      if (!updated) return undefined;
      const conversation = presentConversation((await repos.conversations.findConversation(orgId, id)) ?? updated);
      if (effects) await effects(repos, conversation);
      return conversation;
    });
    if (done) publish(orgId, id, rows, done);
    return done;
  }

  /**
   * The visitor asks for a person (the widget's POST …/session/handoff). Within office hours the conversation
   * waits; outside them the agent answers at once that nobody is available and offers the lead card.
   */
  async function request(orgId: string, id: string): Promise<{ status: string; message: string; leadCard: { toolCallId: string; name: string } | null }> {
    const row = await found(orgId, id);
    const agent = await agents.get(orgId, row.agent_id);
    if (!agent.handoff.enabled) throw new AppError('CONFLICT', HANDOFF_OFF);
    if (HELD.has(row.status)) throw new AppError('CONFLICT', ALREADY_WITH_A_PERSON);
    if (row.message_count >= MAX_MESSAGES) throw full();
    const now = clock.now();
    const leadTool = isOpen(agent.handoff.officeHours, now) ? null : await deps.leadTool(orgId, agent.id);
    const plan = requestPlan(agent.handoff, now, leadTool);
    const rows = plannedRows(id, plan.rows, now.toISOString());
    const done = await commit(orgId, id, rows, { set: plan.set, when: { statuses: REQUESTABLE } }, plan.waiting ? (repos, conversation) => requested(repos, orgId, conversation) : undefined);
    if (!done) throw new AppError('CONFLICT', ALREADY_WITH_A_PERSON);
    const card = rows.find((r) => r.tool_outcome === PENDING);
    return { status: done.status, message: plan.message, leadCard: card ? { toolCallId: card.tool_call_id!, name: card.tool_name! } : null };
  }

  /** The member a change names: a member of the organization, or 404 as for an unknown id. */
  async function member(orgId: string, userId: string): Promise<Person> {
    const found = await repo.findMember(orgId, userId);
    if (!found) throw new AppError('NOT_FOUND', 'No member of your organization has that id.', { field: 'userId' });
    return found;
  }

  /** The person an actor is (null for an API key). */
  const personOf = async (orgId: string, actor: Actor): Promise<Person | null> => (actor.type === 'user' ? member(orgId, actor.id) : null);

  /** A member takes the conversation over (`userId`: another member; required with an API key). */
  async function assign(orgId: string, id: string, actor: Actor, userId: string | undefined): Promise<Conversation> {
    const row = await found(orgId, id);
    if (userId === undefined && actor.type !== 'user') throw new AppError('VALIDATION_ERROR', 'With an API key, say who takes the conversation over: userId (`usr_…`).', { field: 'userId' });
    const assignee = await member(orgId, userId ?? actor.id);
    if (row.status === 'closed') throw new AppError('CONFLICT', 'This conversation is closed. A closed conversation cannot be taken over.');
    if (row.status === 'human' && row.assignee_id === assignee.id) return presentConversation(row);
    if (row.message_count >= MAX_MESSAGES) throw full();
    const by = await personOf(orgId, actor);
    const rows = plannedRows(id, [{ role: 'event', content: EVENT_TEXT.tookOver(assignee.name), author: by, event: { status: 'human', assigneeName: assignee.name } }], clock.now().toISOString());
    const done = await commit(orgId, id, rows, { set: { status: 'human', assignee_id: assignee.id, handoff_deadline_at: null }, when: { statuses: ASSIGNABLE } });
    if (!done) throw new AppError('CONFLICT', 'This conversation is closed. A closed conversation cannot be taken over.');
    return done;
  }

  /** Back to the agent: a waiting or held conversation, unassigned. */
  async function release(orgId: string, id: string, actor: Actor): Promise<Conversation> {
    const row = await found(orgId, id);
    const refused = () => new AppError('CONFLICT', `This conversation is \`${row.status}\`: only one waiting for a person or held by one can be released.`);
    if (!RELEASABLE.includes(row.status as never)) throw refused();
    const rows = plannedRows(id, [{ role: 'event', content: EVENT_TEXT.released, author: await personOf(orgId, actor), event: { status: 'bot', assigneeName: null } }], clock.now().toISOString());
    const done = await commit(orgId, id, rows, { set: { status: 'bot', assignee_id: null, handoff_deadline_at: null }, when: { statuses: RELEASABLE } });
    if (!done) throw refused();
    return done;
  }

  /** Closed (idempotent): nothing is left for a person. The agent still answers if the visitor writes again. */
  async function close(orgId: string, id: string, actor: Actor): Promise<Conversation> {
    const row = await found(orgId, id);
    if (row.status === 'closed') return presentConversation(row);
    const rows = plannedRows(id, [{ role: 'event', content: EVENT_TEXT.closed, author: await personOf(orgId, actor), event: { status: 'closed', assigneeName: null } }], clock.now().toISOString());
    const done = await commit(orgId, id, rows, { set: { status: 'closed', handoff_deadline_at: null }, when: { statuses: ['bot', 'waiting', 'human'] } },
      (repos, conversation) => recordConversationEvent(repos, 'conversation.closed', { orgId, ...conversation }, clock.now().toISOString()));
    return done ?? presentConversation(await found(orgId, id));
  }

  /** A member's reply (`operator`), while the conversation is `human`; an API key's is signed "Team". */
  async function reply(orgId: string, id: string, actor: Actor, content: string): Promise<ConversationMessage> {
    const row = await found(orgId, id);
    if (row.status !== 'human') throw takeOverFirst();
    if (row.message_count >= MAX_MESSAGES) throw full();
    const by = await personOf(orgId, actor);
    const operator = messageRow(id, 0, clock.now().toISOString(), { role: 'operator', content, author_id: by?.id ?? null, author_name: by?.name ?? TEAM });
    const done = await commit(orgId, id, [operator], { when: { statuses: ['human'] } });
    if (!done) throw takeOverFirst();
    return presentMessage(operator);
  }

  /** The model called `request_human` in a turn: what the request does, its rows to append after the turn's. */
  async function planForTurn(orgId: string, conversationId: string, agent: { id: string; handoff: AgentHandoff }) {
    const now = clock.now();
    const leadTool = isOpen(agent.handoff.officeHours, now) ? null : await deps.leadTool(orgId, agent.id);
    const plan = requestPlan(agent.handoff, now, leadTool);
    return { waiting: plan.waiting, set: plan.set, result: plan.result, rows: plannedRows(conversationId, plan.rows, now.toISOString()) };
  }

  /**
   * In the turn's transaction, after the turn's own rows: the request applied (unless a person was asked for or
   * took over meanwhile) with its webhook event and hook. `repos` are the turn's, from the same runner as `transact`.
   */
  async function applyInTurn(repos: HandoffRepos, orgId: string, id: string, plan: Awaited<ReturnType<typeof planForTurn>>): Promise<Conversation | undefined> {
    const updated = await repos.conversations.append(orgId, id, plan.rows, { updatedAt: clock.now().toISOString(), set: plan.set, when: { statuses: REQUESTABLE } });
    if (!updated) return undefined;
    const conversation = presentConversation((await repos.conversations.findConversation(orgId, id)) ?? updated);
    if (plan.waiting) await requested(repos as R, orgId, conversation);
    return conversation;
  }

  /** A user's (visitor's) message while a person is asked for or holds the conversation: stored, the model not called. */
  async function hold(orgId: string, id: string, content: string): Promise<ConversationMessagesTable | undefined> {
    const row = messageRow(id, 0, clock.now().toISOString(), { role: 'user', content });
    const now = clock.now().toISOString();
    const updated = await repo.append(orgId, id, [row], { updatedAt: now, when: { statuses: [...HELD] } });
    if (!updated) return undefined;
    publish(orgId, id, [row]);
    return row;
  }

  /**
   * The deadline worker's pass (every node): each waiting conversation past its deadline goes back to the agent,
   * which says nobody was free and offers the lead card. Each is claimed by its conditional update (status still
   * waiting, deadline passed), so of two nodes only one acts on it. Answers how many this node moved.
   */
  async function expireOverdue(limit = 20): Promise<number> {
    const now = clock.now();
    let moved = 0;
    for (const due of await repo.overdueWaiting(now.toISOString(), limit)) {
      try {
        const agent = await agents.get(due.org_id, due.agent_id);
        const plan = timeoutPlan(agent.handoff, now, await deps.leadTool(due.org_id, agent.id));
        const done = await commit(due.org_id, due.id, plannedRows(due.id, plan.rows, now.toISOString()), { set: plan.set, when: { statuses: ['waiting'], deadlineBefore: now.toISOString() } });
        if (done) moved++;
      } catch (error) {
        // The agent was deleted with its conversations, or the database is away: the next pass tries again.
        deps.log.warn({ err: error, conversationId: due.id }, 'a waiting conversation past its deadline could not be moved back to its agent yet');
      }
    }
    return moved;
  }

  return { request, assign, release, close, reply, hold, expireOverdue, publish, planForTurn, applyInTurn };
}

export type Handoff = ReturnType<typeof createHandoff>;
