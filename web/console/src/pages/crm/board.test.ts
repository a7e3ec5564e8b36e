import { describe, expect, it } from 'vitest';
import type { Opportunity } from '../../api/types';
import { applyMove, groupByStage, moveFailedMessage, movedMessage, moveTargets, rollbackMove } from './board';

const stages = [
  { id: 'stg_won', name: 'Won', position: 2 },
  { id: 'stg_new', name: 'New', position: 0 },
  { id: 'stg_qual', name: 'Qualified', position: 1 },
];

const opp = (id: string, stageId: string, title = id): Opportunity => ({
  id,
  contactId: 'ct_1',
  pipelineId: 'pipe_1',
  stageId,
  title,
  source: 'form',
  custom: {},
  submissionId: null,
  contactErased: false,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
});

describe('groupByStage', () => {
  it('makes one column per stage in stage order, cards in list order', () => {
    const columns = groupByStage(stages, [opp('a', 'stg_qual'), opp('b', 'stg_new'), opp('c', 'stg_qual')]);
    expect(columns.map((c) => c.stage.name)).toEqual(['New', 'Qualified', 'Won']);
    expect(columns.map((c) => c.cards.map((card) => card.id))).toEqual([['b'], ['a', 'c'], []]);
  });

  it('leaves out cards of a stage the pipeline no longer has', () => {
    const columns = groupByStage(stages, [opp('a', 'stg_gone')]);
    expect(columns.flatMap((c) => c.cards)).toEqual([]);
  });
});

describe('applyMove', () => {
  const list = [opp('a', 'stg_new'), opp('b', 'stg_new')];

  it('moves one opportunity without touching the others or the input', () => {
    const next = applyMove(list, { opportunityId: 'b', toStageId: 'stg_won' });
    expect(next.map((o) => o.stageId)).toEqual(['stg_new', 'stg_won']);
    expect(next[0]).toBe(list[0]);
    expect(list[1]!.stageId).toBe('stg_new');
  });

  it('answers the same list for an unknown opportunity or its own stage', () => {
    expect(applyMove(list, { opportunityId: 'zzz', toStageId: 'stg_won' })).toBe(list);
    expect(applyMove(list, { opportunityId: 'a', toStageId: 'stg_new' })).toBe(list);
  });
});

describe('rollbackMove', () => {
  const move = { opportunityId: 'a', toStageId: 'stg_won' };

  it('puts a refused move back', () => {
    const moved = applyMove([opp('a', 'stg_new')], move);
    expect(rollbackMove(moved, move, 'stg_new')[0]!.stageId).toBe('stg_new');
  });

  it('keeps a later move of the same card', () => {
    const later = applyMove(applyMove([opp('a', 'stg_new')], move), { opportunityId: 'a', toStageId: 'stg_qual' });
    expect(rollbackMove(later, move, 'stg_new')).toBe(later);
  });

  it('does nothing when the card is gone', () => {
    const empty: Opportunity[] = [];
    expect(rollbackMove(empty, move, 'stg_new')).toBe(empty);
  });
});

describe('moveTargets and messages', () => {
  it('lists every other stage in order', () => {
    expect(moveTargets(stages, 'stg_qual').map((s) => s.name)).toEqual(['New', 'Won']);
  });

  it('words the announcements', () => {
    expect(movedMessage('Acme deal', 'Qualified')).toBe('Moved Acme deal to Qualified.');
    expect(moveFailedMessage('Acme deal', 'Won', 'No opportunity has that id.')).toBe('Could not move Acme deal to Won: No opportunity has that id.');
  });
});
