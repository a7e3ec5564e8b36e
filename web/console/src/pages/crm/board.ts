import type { Stage } from '../../api/types';
import type { Opportunity } from '../../api/types';

/**
 * The pipeline board's state: opportunities grouped by stage, and moves applied optimistically
 * (with what is needed to undo them when the API refuses).
 */

export interface Column {
  stage: Stage;
  cards: Opportunity[];
}

/** One column per stage, in stage order; cards keep the list's order (newest first). Cards of an unknown stage are left out. */
export function groupByStage(stages: Stage[], opportunities: Opportunity[]): Column[] {
  const ordered = [...stages].sort((a, b) => a.position - b.position);
  const columns = new Map<string, Column>(ordered.map((stage) => [stage.id, { stage, cards: [] }]));
  for (const opportunity of opportunities) columns.get(opportunity.stageId)?.cards.push(opportunity);
  return ordered.map((stage) => columns.get(stage.id)!);
}

export interface Move {
  opportunityId: string;
  toStageId: string;
}

/**
 * The list with one opportunity moved to another stage, or the same list (by identity) when the
 * move changes nothing: an unknown opportunity, or the stage it is already in.
 */
export function applyMove(opportunities: Opportunity[], move: Move): Opportunity[] {
  const index = opportunities.findIndex((opportunity) => opportunity.id === move.opportunityId);
  if (index < 0 || opportunities[index]!.stageId === move.toStageId) return opportunities;
  const next = [...opportunities];
  next[index] = { ...opportunities[index]!, stageId: move.toStageId };
  return next;
}

/**
 * Undoes a failed move on the list as it is now: the opportunity goes back to `fromStageId` only if
 * it still sits where the failed move put it (a later move, or a refetch, wins).
 */
export function rollbackMove(opportunities: Opportunity[], move: Move, fromStageId: string): Opportunity[] {
  const current = opportunities.find((opportunity) => opportunity.id === move.opportunityId);
  if (!current || current.stageId !== move.toStageId) return opportunities;
  return applyMove(opportunities, { opportunityId: move.opportunityId, toStageId: fromStageId });
}

/** Stages a card can move to: every stage but its own, in order. */
export function moveTargets(stages: Stage[], currentStageId: string): Stage[] {
  return [...stages].sort((a, b) => a.position - b.position).filter((stage) => stage.id !== currentStageId);
}

export function movedMessage(title: string, stageName: string): string {
  return `Moved ${title} to ${stageName}.`;
}

export function moveFailedMessage(title: string, stageName: string, reason: string): string {
  return `Could not move ${title} to ${stageName}: ${reason}`;
}
