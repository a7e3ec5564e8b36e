import type { AppError } from '../http/errors.js';
import { budgetHeld, budgetUsedUp } from './errors.js';
import type { ConversationsRepo, DailyCount } from './repo.js';

/**
 * Daily token budgets that are caps when turns run at once (issue 32). A turn's tokens are known only as each
 * model request ends, so a budget checked at the start of each turn alone let every turn that started together
 * through: 20 parallel turns of 40 tokens each counted 800 against a budget of 100.
 *
 * So a turn **reserves** before it calls the model, and **settles** when it is saved:
 * - Its claim of the conversation (`turn_started_at`) holds a reservation (`turn_reserved_tokens`): the largest
 *   turn of the day on that budget, or FIRST_TURN_RESERVATION before the day's first turn has ended.
 * - It starts only while the day's count plus every live reservation on the budget is under the budget. The
 *   count's row is locked while this is decided (PostgreSQL: one claim at a time per budget, on every node;
 *   SQLite writes one transaction at a time), so two turns can never both take the last of a budget.
 * - Saving the turn adds its tokens to the count and clears its reservation in one transaction; a turn that
 *   saves nothing clears its reservation with its claim, and a claim no node released (it died mid-turn)
 *   stops counting once it is stale, as the claim itself does.
 *
 * The bound (docs/conversations.md): while each turn uses at most what it reserved — every turn no larger than
 * the largest one before it that day — the day's count stays under budget + one reservation, however many
 * turns run at once: the same as turns one at a time, where the turn that starts under the budget finishes
 * past it. A turn larger than its reservation adds only its own excess over it.
 */

/**
 * What a turn holds before any turn of the day has ended on its budget: a typical turn with tools (instructions,
 * tool definitions and a short history are 1,000–3,000 input tokens). Past the first turn, the day's largest turn
 * is the measure.
 */
export const FIRST_TURN_RESERVATION = 2_000;

export interface TurnBudgets {
  /** The organization's daily budget (its owner sets it); null: none. */
  org: number | null;
  /** The agent's widget budget, for a widget conversation (the chat widget sets it); null: none. */
  widget: number | null;
}

export interface ReservationScope {
  orgId: string;
  agentId: string;
  day: string;
  /** Claims started before this are stale: they hold nothing. */
  staleBefore: string;
  now: Date;
}

const reservationSize = (count: DailyCount) => (count.largestTurn > 0 ? count.largestTurn : FIRST_TURN_RESERVATION);

/**
 * Decides, in the caller's transaction, how much a turn reserves under its budgets, or refuses it (429): the
 * budget used up, or the rest of it held by turns under way. Locks each budget's count in a fixed order (the
 * organization's, then the widget's), so two claims never wait on each other in a circle.
 */
export async function reserveTurn(repo: ConversationsRepo, budgets: TurnBudgets, scope: ReservationScope): Promise<number> {
  let reserve = 0;
  if (budgets.org !== null) {
    const count = await repo.lockOrgUsage(scope.orgId, scope.day);
    const held = await repo.orgReserved(scope.orgId, scope.staleBefore);
    const refused = refusal('organization', budgets.org, count, held, scope.now);
    if (refused) throw refused;
    reserve = Math.max(reserve, reservationSize(count));
  }
  if (budgets.widget !== null) {
    const count = await repo.lockWidgetUsage(scope.orgId, scope.agentId, scope.day);
    const held = await repo.widgetReserved(scope.agentId, scope.staleBefore);
    const refused = refusal('widget', budgets.widget, count, held, scope.now);
    if (refused) throw refused;
    reserve = Math.max(reserve, reservationSize(count));
  }
  return reserve;
}

function refusal(which: 'organization' | 'widget', budget: number, count: DailyCount, held: number, now: Date): AppError | undefined {
  if (count.tokens >= budget) return budgetUsedUp(which, budget, count.tokens, now);
  if (count.tokens + held >= budget) return budgetHeld(which, budget, count.tokens, held);
  return undefined;
}
