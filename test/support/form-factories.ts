import type { App } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import type { Clock } from '../../src/lib/clock.js';
import { newId, randomBase62 } from '../../src/lib/ids.js';
import type { OrgWithKey } from './org-factories.js';

/** Test helpers for forms: definitions and agents in the database, forms through the Operator API. */

export function uniqueSlug(prefix = 'form'): string {
  return `${prefix}-${randomBase62(10).toLowerCase()}`;
}

/** A distinct public client address per call, so the per-IP rate limit never couples two tests. */
let ipCounter = 0;
export function nextClientIp(): string {
  ipCounter++;
  return `198.18.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

export interface CustomFieldSpec {
  key?: string;
  entity?: 'contact' | 'opportunity';
  label?: string;
  type?: string;
  options?: string[];
  archived?: boolean;
}

/** A custom field definition row (the CRM's custom-field API is another feature; forms only read definitions). */
export async function insertCustomField(database: Database, clock: Clock, orgId: string, spec: CustomFieldSpec = {}) {
  const now = clock.now().toISOString();
  const row = {
    id: newId('cf'),
    org_id: orgId,
    key: spec.key ?? `field_${randomBase62(6).toLowerCase()}`,
    entity: spec.entity ?? 'contact',
    label: spec.label ?? 'Budget',
    type: spec.type ?? 'text',
    options: JSON.stringify(spec.options ?? []),
    archived_at: spec.archived ? now : null,
    created_at: now,
    updated_at: now,
  };
  await database.db.insertInto('custom_fields').values(row).execute();
  return row;
}

export async function insertAgent(database: Database, clock: Clock, orgId: string, brand: Partial<{ brandName: string; logoUrl: string | null; fontFamily: string | null }> = {}) {
  const now = clock.now().toISOString();
  const row = {
    id: newId('agt'),
    org_id: orgId,
    name: 'Front desk',
    brand_name: brand.brandName ?? 'Acme Dental',
    primary_color: '#1a73e8',
    background_color: '#ffffff',
    text_color: '#202124',
    font_family: brand.fontFamily === undefined ? 'Inter, sans-serif' : brand.fontFamily,
    logo_url: brand.logoUrl === undefined ? 'https://acme.example/logo.png' : brand.logoUrl,
    created_at: now,
    updated_at: now,
  };
  await database.db.insertInto('agents').values(row).execute();
  return row;
}

export interface FormRecordJson {
  id: string;
  slug: string;
  title: string;
  active: boolean;
  consentVersion: string;
  consentText: string;
  [key: string]: unknown;
}

/** A form through POST /api/org/forms; throws with the response body on failure. */
export async function createForm(app: App, org: OrgWithKey, body: Record<string, unknown> = {}): Promise<FormRecordJson> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/org/forms',
    headers: org.auth,
    payload: { slug: uniqueSlug(), title: 'Book a visit', consentText: 'I agree to be contacted about my request.', ...body },
  });
  if (res.statusCode !== 201) throw new Error(`form create failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: FormRecordJson }).data;
}

export interface SubmitOptions {
  ip?: string;
  headers?: Record<string, string>;
}

/** POST …/submit from a fresh client address unless one is given. */
export function submit(app: App, slug: string, payload: unknown, options: SubmitOptions = {}) {
  return app.inject({
    method: 'POST',
    url: `/api/public/forms/${slug}/submit`,
    remoteAddress: options.ip ?? nextClientIp(),
    headers: { 'content-type': 'application/json', ...options.headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

export function getConfig(app: App, slug: string, options: SubmitOptions = {}) {
  return app.inject({ method: 'GET', url: `/api/public/forms/${slug}`, remoteAddress: options.ip ?? nextClientIp(), headers: options.headers ?? {} });
}

/** Row counts of everything a submission can write, to prove that a refusal wrote nothing. */
export async function countWrites(database: Database, orgId: string) {
  const count = async (table: 'contacts' | 'notes' | 'opportunities' | 'submissions') =>
    Number((await database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow()).n);
  const keys = Number((await database.db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { contacts: await count('contacts'), notes: await count('notes'), opportunities: await count('opportunities'), submissions: await count('submissions'), idempotencyKeys: keys };
}
