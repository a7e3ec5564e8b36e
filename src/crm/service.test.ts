import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { createTestDatabase, TestClock, testDialects } from '../../test/support/context.js';
import { createOrgWithKey, type OrgWithKey, orgsServiceOn } from '../../test/support/org-factories.js';
import { Repos, transactOn } from '../repos.js';
import { createCrmService, type CrmService } from './service.js';

describe.each(testDialects())('CRM transaction functions on %s', (dialect) => {
  let database: Database;
  let dispose: () => Promise<void>;
  const clock = new TestClock();
  let crm: CrmService;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let frOrg: OrgWithKey;

  beforeAll(async () => {
    ({ database, dispose } = await createTestDatabase(dialect));
    const repos = new Repos(database.db);
    crm = createCrmService({ repo: repos.crm, contacts: repos.contacts, orgs: orgsServiceOn(database, clock), clock });
    [org, other, frOrg] = await Promise.all([
      createOrgWithKey(database, clock),
      createOrgWithKey(database, clock),
      createOrgWithKey(database, clock, { defaultCountry: 'FR' }),
    ]);
  });
  afterAll(async () => dispose());

  const tx = <T>(fn: (repos: Repos) => Promise<T>) => transactOn(database.db)(fn);
  const contactsOf = (orgId: string) => database.db.selectFrom('contacts').selectAll().where('org_id', '=', orgId).execute();

  describe('upsertContact', () => {
    it('creates a contact with normalized identity and the given source', async () => {
      const result = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: '  New.Person@Example.com ', phone: '(415) 555-2671', name: ' Ada ' }, 'form'));
      expect(result.created).toBe(true);
      const row = await database.db.selectFrom('contacts').selectAll().where('id', '=', result.contactId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ org_id: org.orgId, email: 'new.person@example.com', phone: '+14155552671', name: 'Ada', company: null, source: 'form' });
    });

    it('gives the same outcome when told the contact probably exists, whether it does or not', async () => {
      const hint = { probablyExists: true };
      const created = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'hinted@example.com', name: 'Hint' }, 'form', hint));
      expect(created.created).toBe(true);
      const matched = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'HINTED@example.com', company: 'Acme' }, 'form', hint));
      expect(matched).toEqual({ contactId: created.contactId, created: false });
      const row = await database.db.selectFrom('contacts').selectAll().where('id', '=', created.contactId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ name: 'Hint', company: 'Acme' });
    });

    it('matches by email first, then phone; non-empty values overwrite, empty ones never clear', async () => {
      const first = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'merge@example.com', name: 'Grace', company: 'Navy', custom: { plan: 'pro', seats: 3 } }, 'form'));
      const again = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'MERGE@example.com', name: '', company: null, phone: '+14155550101', custom: { plan: '', region: 'EU' } }, 'api'));
      expect(again).toEqual({ contactId: first.contactId, created: false });
      const byPhone = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, phone: '415 555 0101', company: 'Yale' }, 'api'));
      expect(byPhone).toEqual({ contactId: first.contactId, created: false });
      const row = await database.db.selectFrom('contacts').selectAll().where('id', '=', first.contactId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ email: 'merge@example.com', phone: '+14155550101', name: 'Grace', company: 'Yale', source: 'form' });
      expect(JSON.parse(row.custom)).toEqual({ plan: 'pro', seats: 3, region: 'EU' });
    });

    it('a phone match takes the submitted email; a value another contact holds is left out', async () => {
      const a = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, phone: '+14155550102' }, 'form'));
      const b = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'holder@example.com', phone: '+14155550103' }, 'form'));
      // Email matches b; the phone belongs to a, so b keeps its own phone.
      const again = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'holder@example.com', phone: '+14155550102', name: 'Bea' }, 'form'));
      expect(again.contactId).toBe(b.contactId);
      const rowB = await database.db.selectFrom('contacts').selectAll().where('id', '=', b.contactId).executeTakeFirstOrThrow();
      expect(rowB).toMatchObject({ phone: '+14155550103', name: 'Bea' });
      // Phone-only contact a gets an email on a phone match.
      const viaPhone = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'a@example.com', phone: '+14155550102' }, 'form'));
      expect(viaPhone.contactId).toBe(a.contactId);
      const rowA = await database.db.selectFrom('contacts').selectAll().where('id', '=', a.contactId).executeTakeFirstOrThrow();
      expect(rowA.email).toBe('a@example.com');
    });

    it('reads national numbers in the org default country', async () => {
      const result = await tx((repos) => crm.upsertContact(repos, { orgId: frOrg.orgId, phone: '06 12 34 56 78' }, 'form'));
      const row = await database.db.selectFrom('contacts').select('phone').where('id', '=', result.contactId).executeTakeFirstOrThrow();
      expect(row.phone).toBe('+33612345678');
    });

    it('keeps orgs apart: the same email in two orgs is two contacts', async () => {
      const mine = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'shared@example.com' }, 'form'));
      const theirs = await tx((repos) => crm.upsertContact(repos, { orgId: other.orgId, email: 'shared@example.com' }, 'form'));
      expect(theirs.created).toBe(true);
      expect(theirs.contactId).not.toBe(mine.contactId);
    });

    it('refuses missing or invalid identity with typed errors and writes nothing', async () => {
      const before = (await contactsOf(org.orgId)).length;
      await expect(tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, name: 'Nobody' }, 'form'))).rejects.toMatchObject({ code: 'IDENTITY_REQUIRED' });
      await expect(tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'not-an-email' }, 'form'))).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'email' });
      await expect(tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'ok@example.com', phone: '12' }, 'form'))).rejects.toMatchObject({ code: 'INVALID_FIELD', field: 'phone' });
      expect((await contactsOf(org.orgId)).length).toBe(before);
    });

    it('50 concurrent submissions with one email make exactly one contact', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'Rush@Example.com', name: `Rush ${i}` }, 'form')),
        ),
      );
      const rows = (await contactsOf(org.orgId)).filter((row) => row.email === 'rush@example.com');
      expect(rows).toHaveLength(1);
      expect(new Set(results.map((r) => r.contactId))).toEqual(new Set([rows[0]!.id]));
      expect(results.filter((r) => r.created)).toHaveLength(1);
    });

    it('50 concurrent phone-only submissions make exactly one contact', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, phone: i % 2 ? '+1 415 555 0150' : '(415) 555-0150' }, 'form'))),
      );
      const rows = (await contactsOf(org.orgId)).filter((row) => row.phone === '+14155550150');
      expect(rows).toHaveLength(1);
      expect(new Set(results.map((r) => r.contactId)).size).toBe(1);
    });

    it('concurrent submissions crossing email and phone never fail and never duplicate an identity', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          tx((repos) =>
            crm.upsertContact(repos, i % 3 === 0 ? { orgId: org.orgId, email: 'cross@example.com' } : i % 3 === 1 ? { orgId: org.orgId, phone: '+14155550160' } : { orgId: org.orgId, email: 'cross@example.com', phone: '+14155550160' }, 'form'),
          ),
        ),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const rows = await contactsOf(org.orgId);
      expect(rows.filter((row) => row.email === 'cross@example.com')).toHaveLength(1);
      expect(rows.filter((row) => row.phone === '+14155550160')).toHaveLength(1);
    });
  });

  describe('notes and opportunities', () => {
    it('adds a note and an opportunity in the default pipeline, within one transaction', async () => {
      const ids = await tx(async (repos) => {
        const { contactId } = await crm.upsertContact(repos, { orgId: org.orgId, email: 'deal@example.com' }, 'form');
        const { noteId } = await crm.addNote({ orgId: org.orgId, contactId, body: 'Call me', source: 'form' }, repos);
        const target = await crm.resolveOpportunityTarget(org.orgId, null, null, repos);
        const { opportunityId } = await crm.createOpportunity({ orgId: org.orgId, contactId, ...target, title: 'Website lead', source: 'form', custom: { budget: 1000 } }, repos);
        return { contactId, noteId, opportunityId, target };
      });
      expect(ids.target).toEqual({ pipelineId: org.defaultPipeline.id, stageId: org.defaultPipeline.stages[0]!.id });
      const opp = await database.db.selectFrom('opportunities').selectAll().where('id', '=', ids.opportunityId).executeTakeFirstOrThrow();
      expect(opp).toMatchObject({ org_id: org.orgId, contact_id: ids.contactId, title: 'Website lead', source: 'form', custom: '{"budget":1000}' });
      const note = await database.db.selectFrom('notes').selectAll().where('id', '=', ids.noteId).executeTakeFirstOrThrow();
      expect(note).toMatchObject({ body: 'Call me', contact_id: ids.contactId, submission_id: null });
    });

    it("refuses another org's contact or stage", async () => {
      const theirs = await tx((repos) => crm.upsertContact(repos, { orgId: other.orgId, email: 'theirs@example.com' }, 'form'));
      await expect(tx((repos) => crm.addNote({ orgId: org.orgId, contactId: theirs.contactId, body: 'x', source: 'api' }, repos))).rejects.toMatchObject({ code: 'CONTACT_NOT_FOUND' });
      const mine = await tx((repos) => crm.upsertContact(repos, { orgId: org.orgId, email: 'mine@example.com' }, 'form'));
      await expect(
        tx((repos) => crm.createOpportunity({ orgId: org.orgId, contactId: mine.contactId, pipelineId: other.defaultPipeline.id, stageId: other.defaultPipeline.stages[0]!.id, title: 't', source: 'api' }, repos)),
      ).rejects.toMatchObject({ code: 'STAGE_NOT_FOUND' });
    });
  });

  describe('resolveOpportunityTarget', () => {
    const resolve = (orgId: string, pipelineId: string | null, stageId: string | null) => tx((repos) => crm.resolveOpportunityTarget(orgId, pipelineId, stageId, repos));

    it('uses the configured pipeline and stage, or a pipeline alone with its first stage, or a stage alone', async () => {
      const stage = org.defaultPipeline.stages[2]!;
      expect(await resolve(org.orgId, org.defaultPipeline.id, stage.id)).toEqual({ pipelineId: org.defaultPipeline.id, stageId: stage.id });
      expect(await resolve(org.orgId, org.defaultPipeline.id, null)).toEqual({ pipelineId: org.defaultPipeline.id, stageId: org.defaultPipeline.stages[0]!.id });
      expect(await resolve(org.orgId, null, stage.id)).toEqual({ pipelineId: org.defaultPipeline.id, stageId: stage.id });
    });

    it('fails with 422 codes when the configuration points at something gone or foreign', async () => {
      const error = await resolve(org.orgId, newId('pipe'), null).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'PIPELINE_NOT_FOUND', status: 422 });
      await expect(resolve(org.orgId, other.defaultPipeline.id, other.defaultPipeline.stages[0]!.id)).rejects.toMatchObject({ code: 'PIPELINE_NOT_FOUND' });
      await expect(resolve(org.orgId, org.defaultPipeline.id, newId('stg'))).rejects.toMatchObject({ code: 'STAGE_NOT_FOUND', status: 422 });
      await expect(resolve(org.orgId, org.defaultPipeline.id, other.defaultPipeline.stages[0]!.id)).rejects.toMatchObject({ code: 'STAGE_NOT_FOUND' });
      await expect(resolve(org.orgId, null, other.defaultPipeline.stages[0]!.id)).rejects.toMatchObject({ code: 'STAGE_NOT_FOUND' });
    });
  });

  describe('resolvers for the public form config', () => {
    it('returns active custom field definitions in the order asked, omitting archived, unknown and foreign ones', async () => {
      const now = clock.now().toISOString();
      const row = (key: string, orgId: string, archived: boolean) => ({
        id: newId('cf'), org_id: orgId, key, entity: 'contact', label: key.toUpperCase(), type: 'select', options: '["a","b"]',
        archived_at: archived ? now : null, created_at: now, updated_at: now,
      });
      const [live1, live2, archived, foreign] = [row('size', org.orgId, false), row('tier', org.orgId, false), row('old', org.orgId, true), row('size', other.orgId, false)];
      await database.db.insertInto('custom_fields').values([live1, live2, archived, foreign]).execute();
      const defs = await crm.activeCustomFields(org.orgId, [live2.id, archived.id, foreign.id, newId('cf'), live1.id]);
      expect(defs).toEqual([
        { id: live2.id, key: 'tier', entity: 'contact', label: 'TIER', type: 'select', options: ['a', 'b'] },
        { id: live1.id, key: 'size', entity: 'contact', label: 'SIZE', type: 'select', options: ['a', 'b'] },
      ]);
    });
  });
});
