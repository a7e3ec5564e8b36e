import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { Opportunity } from '../../api/types';
import { applyMove, rollbackMove, type Move } from './board';

/**
 * A board move against the query cache: shown at once (optimistic), confirmed with the API's answer,
 * or undone when the API refuses it.
 */

export interface MoveContext {
  /** Where the card was before the move; undefined when it was not on the board. */
  fromStageId: string | undefined;
}

/** Before the request: stops refetches that would overwrite the move, and moves the card. */
export async function beginMove(client: QueryClient, key: QueryKey, move: Move): Promise<MoveContext> {
  await client.cancelQueries({ queryKey: key });
  const fromStageId = client.getQueryData<Opportunity[]>(key)?.find((o) => o.id === move.opportunityId)?.stageId;
  client.setQueryData<Opportunity[]>(key, (old) => (old ? applyMove(old, move) : old));
  return { fromStageId };
}

/** The API's answer replaces the card, unless a later move already took it elsewhere. */
export function confirmMove(client: QueryClient, key: QueryKey, updated: Opportunity): void {
  client.setQueryData<Opportunity[]>(key, (old) => old?.map((o) => (o.id === updated.id && o.stageId === updated.stageId ? updated : o)));
}

/** A refused move: the card goes back where it was (if nothing moved it since). */
export function failMove(client: QueryClient, key: QueryKey, move: Move, context: MoveContext | undefined): void {
  const from = context?.fromStageId;
  if (!from) return;
  client.setQueryData<Opportunity[]>(key, (old) => (old ? rollbackMove(old, move, from) : old));
}
