import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { Opportunity } from '../../api/types';
import { beginMove, confirmMove, failMove } from './board-cache';

const key = ['crm', 'opportunities', 'pipe_1'];
const opp = (id: string, stageId: string): Opportunity => ({
  id,
  contactId: 'ct_1',
  pipelineId: 'pipe_1',
  stageId,
  title: id,
  source: 'form',
  custom: {},
  submissionId: null,
  contactErased: false,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
});

function board() {
  const client = new QueryClient();
  client.setQueryData(key, [opp('a', 'stg_new'), opp('b', 'stg_new')]);
  const stages = () => client.getQueryData<Opportunity[]>(key)!.map((o) => `${o.id}:${o.stageId}`);
  return { client, stages };
}

describe('a board move in the query cache', () => {
  it('shows the move at once and keeps the API answer', async () => {
    const { client, stages } = board();
    const context = await beginMove(client, key, { opportunityId: 'a', toStageId: 'stg_won' });
    expect(context).toEqual({ fromStageId: 'stg_new' });
    expect(stages()).toEqual(['a:stg_won', 'b:stg_new']);
    confirmMove(client, key, { ...opp('a', 'stg_won'), updatedAt: '2026-11-02T00:00:00.000Z' });
    expect(client.getQueryData<Opportunity[]>(key)![0]!.updatedAt).toBe('2026-11-02T00:00:00.000Z');
  });

  it('puts a refused move back', async () => {
    const { client, stages } = board();
    const move = { opportunityId: 'b', toStageId: 'stg_won' };
    const context = await beginMove(client, key, move);
    failMove(client, key, move, context);
    expect(stages()).toEqual(['a:stg_new', 'b:stg_new']);
  });

  it('keeps a later move when an earlier one is refused', async () => {
    const { client, stages } = board();
    const first = { opportunityId: 'a', toStageId: 'stg_won' };
    const firstContext = await beginMove(client, key, first);
    await beginMove(client, key, { opportunityId: 'a', toStageId: 'stg_lost' });
    failMove(client, key, first, firstContext);
    expect(stages()).toEqual(['a:stg_lost', 'b:stg_new']);
  });

  it('ignores a stale answer for a card moved again since', async () => {
    const { client, stages } = board();
    await beginMove(client, key, { opportunityId: 'a', toStageId: 'stg_won' });
    await beginMove(client, key, { opportunityId: 'a', toStageId: 'stg_lost' });
    confirmMove(client, key, opp('a', 'stg_won'));
    expect(stages()).toEqual(['a:stg_lost', 'b:stg_new']);
  });

  it('leaves the cache alone for a card not on the board', async () => {
    const { client, stages } = board();
    const move = { opportunityId: 'zzz', toStageId: 'stg_won' };
    const context = await beginMove(client, key, move);
    expect(context.fromStageId).toBeUndefined();
    failMove(client, key, move, context);
    expect(stages()).toEqual(['a:stg_new', 'b:stg_new']);
  });
});
