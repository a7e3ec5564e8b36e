import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStandaloneOrgsService } from '../app.js';
import type { Database } from '../db/database.js';
import { newId } from '../lib/ids.js';
import { createTestDatabase, TestClock, testDialects } from '../../test/support/context.js';
import { createOrgWithKey, type OrgWithKey } from '../../test/support/org-factories.js';
import type { OrgsService } from './service.js';

/** What other features (the CRM, public forms) read about an org through the orgs service. */
describe.each(testDialects())('org settings as other features read them on %s', (dialect) => {
  let database: Database;
  let dispose: () => Promise<void>;
  const clock = new TestClock();
  let orgs: OrgsService;
  let org: OrgWithKey;
  let other: OrgWithKey;
  let frOrg: OrgWithKey;

  beforeAll(async () => {
    ({ database, dispose } = await createTestDatabase(dialect));
    orgs = createStandaloneOrgsService(database.db, clock);
    [org, other, frOrg] = await Promise.all([
      createOrgWithKey(database, clock),
      createOrgWithKey(database, clock),
      createOrgWithKey(database, clock, { defaultCountry: 'FR' }),
    ]);
  });
  afterAll(async () => dispose());

  it('gives the default country an org was created with', async () => {
    expect(await orgs.defaultCountry(frOrg.orgId)).toBe('FR');
    expect(await orgs.defaultCountry(org.orgId)).toBe('US');
  });

  it("returns an agent's branding, or null for none, a missing or a foreign agent", async () => {
    const now = clock.now().toISOString();
    const agent = { id: newId('agt'), org_id: org.orgId, name: 'Bot', brand_name: 'Acme', primary_color: '#123456', background_color: '#fff', text_color: '#000', font_family: null, logo_url: 'https://acme.example/logo.png', created_at: now, updated_at: now };
    await database.db.insertInto('agents').values(agent).execute();
    expect(await orgs.agentBranding(org.orgId, agent.id)).toEqual({
      name: 'Acme', primaryColor: '#123456', backgroundColor: '#fff', textColor: '#000', fontFamily: null, logoUrl: 'https://acme.example/logo.png',
    });
    expect(await orgs.agentBranding(org.orgId, null)).toBeNull();
    expect(await orgs.agentBranding(other.orgId, agent.id)).toBeNull();
    expect(await orgs.agentBranding(org.orgId, newId('agt'))).toBeNull();
  });
});
