import { describe, expect, it } from 'vitest';
import { addStage, checkDraft, draftFrom, draftFromNames, moveItem, removeStage, renameStage, stageIndexOf, stagesChanged, stagesPayload } from './stages';

const saved = [
  { id: 'stg_b', name: 'Qualified', position: 1 },
  { id: 'stg_a', name: 'New', position: 0 },
];

describe('moveItem', () => {
  it('moves up and down', () => {
    expect(moveItem(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(moveItem(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
  });

  it('clamps to the list and keeps the list when nothing moves', () => {
    const list = ['a', 'b'];
    expect(moveItem(list, 0, -1)).toBe(list);
    expect(moveItem(list, 1, 5)).toBe(list);
    expect(moveItem(list, 0, 9)).toEqual(['b', 'a']);
    expect(moveItem([], 0, 1)).toEqual([]);
  });
});

describe('stage drafts', () => {
  it('start from the saved stages in position order', () => {
    expect(draftFrom(saved).map((s) => s.name)).toEqual(['New', 'Qualified']);
    expect(stagesChanged(saved, draftFrom(saved))).toBe(false);
  });

  it('send kept stages by id and new ones without, trimmed', () => {
    let draft = draftFrom(saved);
    draft = addStage(draft, '  Won ');
    draft = renameStage(draft, 'stg_a', 'Lead');
    draft = moveItem(draft, 2, 0);
    expect(stagesPayload(draft)).toEqual([{ name: 'Won' }, { id: 'stg_a', name: 'Lead' }, { id: 'stg_b', name: 'Qualified' }]);
    expect(stagesChanged(saved, draft)).toBe(true);
  });

  it('notice removals and reorders', () => {
    expect(stagesChanged(saved, removeStage(draftFrom(saved), 'stg_b'))).toBe(true);
    expect(stagesChanged(saved, moveItem(draftFrom(saved), 0, 1))).toBe(true);
  });

  it('give new stages keys of their own', () => {
    const draft = draftFromNames(['New', 'New']);
    expect(new Set(draft.map((s) => s.key)).size).toBe(2);
  });
});

describe('checkDraft', () => {
  it('accepts distinct names', () => {
    expect(checkDraft(draftFromNames(['New', 'Won']))).toBeNull();
  });

  it('points at an empty or repeated name', () => {
    expect(checkDraft(draftFromNames(['New', ' ']))).toEqual({ index: 1, message: 'Give this stage a name.' });
    expect(checkDraft(draftFromNames(['New', 'Won', 'new ']))).toEqual({ index: 2, message: 'Another stage is already named "new".' });
    expect(checkDraft([])?.message).toBe('A pipeline needs at least one stage.');
  });
});

describe('stageIndexOf', () => {
  it('reads the index of an API field', () => {
    expect(stageIndexOf('stages.3.name')).toBe(3);
    expect(stageIndexOf('stages.0.id')).toBe(0);
    expect(stageIndexOf('stages.1')).toBe(1);
    expect(stageIndexOf('name')).toBeUndefined();
    expect(stageIndexOf(undefined)).toBeUndefined();
  });
});
