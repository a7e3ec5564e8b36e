import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { TestClock } from '../../test/support/context.js';
import type { FormsRepo } from './repo.js';
import { createFormViews } from './views-service.js';

type Rows = Parameters<FormsRepo['addViews']>[0];

function fakeRepo(fail = () => false) {
  const calls: Rows[] = [];
  const repo = { addViews: async (rows: Rows) => { if (fail()) throw new Error('database down'); calls.push(rows.map((r) => ({ ...r }))); } } as unknown as FormsRepo;
  return { repo, calls };
}

describe('form views', () => {
  const clock = new TestClock(Date.parse('2026-11-23T10:00:00Z'));
  const log = pino({ level: 'silent' });

  it('records without touching the database, then writes one row per form and day in one flush', async () => {
    const { repo, calls } = fakeRepo();
    const views = createFormViews({ repo, clock, log, flushMs: 60_000 });
    for (let i = 0; i < 3; i++) views.record({ id: 'frm_a', orgId: 'org_1' });
    views.record({ id: 'frm_b', orgId: 'org_1' });
    expect(calls).toEqual([]);
    await views.flush();
    expect(calls).toEqual([[{ form_id: 'frm_a', day: '2026-11-23', views: 3 }, { form_id: 'frm_b', day: '2026-11-23', views: 1 }]]);
    await views.flush();
    expect(calls).toHaveLength(1); // nothing pending, nothing written
    await views.stop();
  });

  it('counts each view on the UTC day it happened, across midnight and back', async () => {
    const { repo, calls } = fakeRepo();
    const at = new TestClock(Date.parse('2026-11-23T23:59:59.999Z'));
    const views = createFormViews({ repo, clock: at, log, flushMs: 60_000 });
    views.record({ id: 'frm_a', orgId: 'org_1' });
    at.advance(1);
    views.record({ id: 'frm_a', orgId: 'org_1' });
    views.record({ id: 'frm_b', orgId: 'org_1' });
    at.advance(-12 * 3600_000); // a clock set back: 2026-11-23T12:00Z
    views.record({ id: 'frm_a', orgId: 'org_1' });
    await views.stop();
    expect(calls).toEqual([[
      { form_id: 'frm_a', day: '2026-11-23', views: 2 },
      { form_id: 'frm_a', day: '2026-11-24', views: 1 },
      { form_id: 'frm_b', day: '2026-11-24', views: 1 },
    ]]);
  });

  it('flushes on its timer', async () => {
    const { repo, calls } = fakeRepo();
    const views = createFormViews({ repo, clock, log, flushMs: 10 });
    views.record({ id: 'frm_a', orgId: 'org_1' });
    await expect.poll(() => calls.length, { timeout: 10_000 }).toBe(1);
    await views.stop();
  });

  it('keeps the counts of a failed flush for the next one', async () => {
    let down = true;
    const { repo, calls } = fakeRepo(() => down);
    const views = createFormViews({ repo, clock, log, flushMs: 60_000 });
    views.record({ id: 'frm_a', orgId: 'org_1' });
    await views.flush();
    views.record({ id: 'frm_a', orgId: 'org_1' });
    down = false;
    await views.stop();
    expect(calls).toEqual([[{ form_id: 'frm_a', day: '2026-11-23', views: 2 }]]);
  });
});
