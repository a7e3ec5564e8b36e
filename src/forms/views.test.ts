import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { createForm, getConfig, nextClientIp, submit } from '../../test/support/form-factories.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';

describe.each(testDialects())('form views and stats on %s', (dialect) => {
  let t: TestContext;
  let org: OrgWithKey;

  beforeAll(async () => {
    t = await createTestContext(dialect);
    org = await createOrgWithKey(t.database, t.clock);
  });
  afterAll(async () => t.close());

  const operator = (url: string) => t.app.inject({ method: 'GET', url, headers: org.auth });
  const loadPage = (slug: string, query = '') => t.app.inject({ method: 'GET', url: `/f/${slug}${query}`, remoteAddress: nextClientIp() });
  const today = () => t.clock.now().toISOString().slice(0, 10);

  it('counts hosted page loads (embed too) and config reads as views, and stored submissions', async () => {
    const form = await createForm(t.app, org);
    expect((await operator(`/api/org/forms/${form.id}`)).json().data).toMatchObject({ id: form.id, views: 0, submissions: 0 });

    await loadPage(form.slug);
    await loadPage(form.slug, '?embed=1');
    const first = await loadPage(form.slug);
    // A revalidated page is a view too: the visitor saw the form.
    expect((await t.app.inject({ method: 'GET', url: `/f/${form.slug}`, headers: { 'if-none-match': String(first.headers.etag) }, remoteAddress: nextClientIp() })).statusCode).toBe(304);
    await getConfig(t.app, form.slug);
    // Not views: an unknown slug, a honeypot hit is not a submission either.
    await loadPage('no-such-form-xyz');
    expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'seen@example.com' })).statusCode).toBe(200);
    expect((await submit(t.app, form.slug, { consentVersion: '1', email: 'bot@example.com', _hp: 'x' })).statusCode).toBe(200);

    const res = await operator(`/api/org/forms/${form.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ views: 5, submissions: 1 });
    // The list gives the same counts for each form of the page (here a fresh one with none, and this one).
    const unseen = await createForm(t.app, org);
    const listed = (await operator('/api/org/forms')).json().data.items as { id: string; views: number; submissions: number }[];
    expect(listed.find((item) => item.id === form.id)).toMatchObject({ views: 5, submissions: 1 });
    expect(listed.find((item) => item.id === unseen.id)).toMatchObject({ views: 0, submissions: 0 });
  });

  it('gives views and submissions per UTC day for the last 30 days', async () => {
    const form = await createForm(t.app, org);
    await loadPage(form.slug);
    await submit(t.app, form.slug, { consentVersion: '1', email: 'day1@example.com' });
    const firstDay = today();
    t.clock.advance(24 * 60 * 60 * 1000);
    await loadPage(form.slug);
    await loadPage(form.slug);
    await getConfig(t.app, form.slug);

    const res = await operator(`/api/org/forms/${form.id}/stats`);
    expect(res.statusCode).toBe(200);
    const stats = res.json().data as { from: string; to: string; views: number; submissions: number; days: { day: string; views: number; submissions: number }[] };
    expect(stats.days).toHaveLength(30);
    expect(stats.to).toBe(today());
    expect(stats.days[29]).toEqual({ day: today(), views: 3, submissions: 0 });
    expect(stats.days[28]).toEqual({ day: firstDay, views: 1, submissions: 1 });
    expect(stats.days[0]!.day).toBe(stats.from);
    expect(stats.days.slice(0, 28).every((d) => d.views === 0 && d.submissions === 0)).toBe(true);
    expect(stats).toMatchObject({ views: 4, submissions: 1 });

    // 30 days later the first day has left the window; the all-time counts keep it.
    t.clock.advance(29 * 24 * 60 * 60 * 1000);
    const later = (await operator(`/api/org/forms/${form.id}/stats`)).json().data;
    expect(later).toMatchObject({ views: 3, submissions: 0 });
    expect((await operator(`/api/org/forms/${form.id}`)).json().data).toMatchObject({ views: 4, submissions: 1 });
  });

  it('drops the pending views of a deleted form without losing the others', async () => {
    const [gone, kept] = [await createForm(t.app, org), await createForm(t.app, org)];
    await loadPage(gone.slug);
    await loadPage(kept.slug);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/org/forms/${gone.id}`, headers: org.auth })).statusCode).toBe(200);
    expect((await operator(`/api/org/forms/${kept.id}`)).json().data).toMatchObject({ views: 1 });
  });

  it('answers 404 for another org\'s form or an unknown one', async () => {
    const other = await createOrgWithKey(t.database, t.clock);
    const form = await createForm(t.app, other);
    expect((await operator(`/api/org/forms/${form.id}/stats`)).statusCode).toBe(404);
    expect((await operator('/api/org/forms/frm_doesnotexist000000/stats')).statusCode).toBe(404);
  });
});
