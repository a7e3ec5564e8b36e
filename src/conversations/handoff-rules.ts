import { describeOpening, isOpen, nextOpening, WEEKDAYS, type OfficeHours } from '../orgs/office-hours.js';
import type { AgentHandoff } from '../orgs/schema.js';
import type { PendingTool } from './loop.js';

/**
 * Hand-off's rules (issue 35), without I/O: a conversation's statuses, the `request_human` tool, and what a
 * request, a timeout, an assignment, a release and a close write into the transcript. handoff.ts applies them.
 *
 * bot ──request──▶ waiting ──assign──▶ human ──release──▶ bot;  any ──close──▶ closed (closed ──request──▶ waiting).
 * assign also takes a `bot` conversation over directly, and moves a `human` one to another member.
 * waiting ──deadline──▶ bot (the agent says nobody was free, and offers the lead card).
 */

export const STATUSES = ['bot', 'waiting', 'human', 'closed'] as const;
export type ConversationStatus = (typeof STATUSES)[number];

/** A person was asked for, or holds it: the model is never called. */
export const HELD: ReadonlySet<string> = new Set(['waiting', 'human']);
/** From where a request for a person is taken. */
export const REQUESTABLE: readonly ConversationStatus[] = ['bot', 'closed'];
export const ASSIGNABLE: readonly ConversationStatus[] = ['bot', 'waiting', 'human'];
export const RELEASABLE: readonly ConversationStatus[] = ['waiting', 'human'];

/** The built-in tool the model gets in widget conversations while hand-off is on (handled by the service, never an endpoint). */
export const REQUEST_HUMAN = 'request_human';

export function requestHumanTool(): PendingTool {
  return {
    name: REQUEST_HUMAN,
    description:
      'Ask a person from the team to take over this chat. Call it when the visitor asks for a human, or when they need help you cannot give and a person could. ' +
      'Takes no arguments. The visitor is told at once whether someone is available and how long it may take; you are not asked to answer while a person is asked for or holds the chat.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  };
}

/** Who an event's row names as its cause; null for the visitor, the model, the worker or an API key. */
export interface Person {
  id: string;
  name: string;
}

/** A message a transition writes, before its seq and id. */
export interface PlannedRow {
  role: 'assistant' | 'event' | 'tool';
  content: string | null;
  author?: Person | null;
  /** Events: the status they moved the conversation to, and who holds it then. */
  event?: { status: ConversationStatus; assigneeName: string | null };
  /** The lead card offered as a pending call (tool rows). */
  pendingTool?: string;
}

export const EVENT_TEXT = {
  waiting: 'Waiting for a person',
  unavailable: 'Nobody was available',
  tookOver: (name: string) => `${name} took over`,
  released: 'Back to the agent',
  closed: 'Closed',
} as const;

const DAY_NAMES = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' } as const;

/** "Monday to Friday, 09:00–17:00 (Europe/Helsinki)": the office hours for a visitor. */
export function describeHours(hours: OfficeHours): string {
  const indexes = hours.days.map((day) => WEEKDAYS.indexOf(day)).sort((a, b) => a - b);
  const consecutive = indexes.every((index, i) => i === 0 || index === indexes[i - 1]! + 1);
  const days = indexes.length === 7 ? 'Every day'
    : consecutive && indexes.length > 2 ? `${DAY_NAMES[WEEKDAYS[indexes[0]!]!]} to ${DAY_NAMES[WEEKDAYS[indexes.at(-1)!]!]}`
    : indexes.map((index) => DAY_NAMES[WEEKDAYS[index]!]).join(', ');
  return `${days}, ${hours.open}–${hours.close} (${hours.timezone})`;
}

const minutes = (seconds: number) => Math.max(1, Math.round(seconds / 60));

/** What the visitor is told while waiting. */
export function waitingText(handoff: AgentHandoff): string {
  const n = minutes(handoff.waitSeconds);
  const hours = handoff.officeHours ? ` Our team is available ${describeHours(handoff.officeHours)}.` : '';
  return `I've asked the team to join this chat. Someone will reply here within about ${n} minute${n === 1 ? '' : 's'}.${hours}`;
}

/** What the visitor is told when nobody can come: outside office hours (when they open), or nobody took it in time. */
export function unavailableText(handoff: AgentHandoff, now: Date, leadCard: boolean, timedOut: boolean): string {
  const opening = handoff.officeHours && !isOpen(handoff.officeHours, now) ? nextOpening(handoff.officeHours, now) : null;
  const first = timedOut ? 'Sorry, nobody from the team is free right now.' : 'Nobody from the team is available right now.';
  const back = opening && handoff.officeHours ? ` We're back ${describeOpening(handoff.officeHours, opening)}.` : '';
  const next = leadCard ? ' Leave your details below and we\'ll get back to you.' : ' You can keep chatting with me, or try again later.';
  return `${first}${back}${next}`;
}

/** Whether a person can come now: hand-off is on and it is within the office hours. */
export function available(handoff: AgentHandoff, now: Date): boolean {
  return handoff.enabled && isOpen(handoff.officeHours, now);
}

/**
 * A request for a person. Within office hours: `waiting` until the deadline, the event then the notice.
 * Outside them: no change of status, the event "Nobody was available", the agent's answer and the lead card.
 * `leadTool`: the pending tool that offers the lead card (chat/), null when the agent has none.
 */
export function requestPlan(handoff: AgentHandoff, now: Date, leadTool: string | null) {
  if (isOpen(handoff.officeHours, now)) {
    const deadline = new Date(now.getTime() + handoff.waitSeconds * 1000).toISOString();
    const message = waitingText(handoff);
    return {
      waiting: true as const,
      message,
      set: { status: 'waiting', assignee_id: null, handoff_requested_at: now.toISOString(), handoff_deadline_at: deadline },
      rows: [
        { role: 'event', content: EVENT_TEXT.waiting, event: { status: 'waiting', assigneeName: null } },
        { role: 'assistant', content: message },
      ] satisfies PlannedRow[],
      /** What the model's `request_human` call answers. */
      result: { status: 'waiting', waitSeconds: handoff.waitSeconds },
    };
  }
  const message = unavailableText(handoff, now, leadTool !== null, false);
  return {
    waiting: false as const,
    message,
    set: { handoff_requested_at: now.toISOString() },
    rows: unavailableRows(message, EVENT_TEXT.unavailable, leadTool),
    result: { status: 'unavailable', reason: 'outside office hours', told: message },
  };
}

/** Nobody took a waiting conversation by its deadline: back to the agent, which says so and offers the lead card. */
export function timeoutPlan(handoff: AgentHandoff, now: Date, leadTool: string | null) {
  return {
    set: { status: 'bot', handoff_deadline_at: null },
    rows: unavailableRows(unavailableText(handoff, now, leadTool !== null, true), EVENT_TEXT.released, leadTool),
  };
}

function unavailableRows(message: string, event: string, leadTool: string | null): PlannedRow[] {
  return [
    { role: 'event', content: event, event: { status: 'bot', assigneeName: null } },
    { role: 'assistant', content: message },
    ...(leadTool ? [{ role: 'tool' as const, content: null, pendingTool: leadTool }] : []),
  ];
}
