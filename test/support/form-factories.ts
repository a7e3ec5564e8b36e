import type { App } from '../../src/http/app-type.js';
import type { Database } from '../../src/db/database.js';
import { randomBase62 } from '../../src/lib/ids.js';
import type { OrgWithKey } from './org-factories.js';

/** Test helpers for forms: everything through the Operator API, as the panel does it. */

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
}

async function operatorPost(app: App, org: OrgWithKey, url: string, payload: unknown): Promise<Record<string, any>> {
  const res = await app.inject({ method: 'POST', url, headers: org.auth, payload: payload as object });
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`POST ${url} failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: Record<string, any> }).data;
}

/** A custom field definition through POST /api/org/custom-fields. */
export function createCustomField(app: App, org: OrgWithKey, spec: CustomFieldSpec = {}) {
  return operatorPost(app, org, '/api/org/custom-fields', {
    key: spec.key ?? `field_${randomBase62(6).toLowerCase()}`,
    entity: spec.entity ?? 'contact',
    label: spec.label ?? 'Budget',
    type: spec.type ?? 'text',
    ...(spec.options ? { options: spec.options } : {}),
  }) as Promise<{ id: string; key: string; label: string; [key: string]: unknown }>;
}

export function archiveCustomField(app: App, org: OrgWithKey, id: string) {
  return operatorPost(app, org, `/api/org/custom-fields/${id}/archive`, undefined);
}

/** An agent with a brand through POST /api/org/agents. */
export function createAgent(app: App, org: OrgWithKey, branding: Record<string, unknown> = {}) {
  return operatorPost(app, org, '/api/org/agents', {
    name: 'Front desk',
    branding: { name: 'Acme Dental', primaryColor: '#1a73e8', backgroundColor: '#ffffff', textColor: '#202124', fontFamily: 'Inter, sans-serif', logoUrl: 'https://acme.example/logo.png', ...branding },
  }) as Promise<{ id: string; [key: string]: unknown }>;
}

/** A pipeline with stages through POST /api/org/pipelines. */
export function createPipeline(app: App, org: OrgWithKey, stages: string[] = ['Inbox', 'Call back']) {
  return operatorPost(app, org, '/api/org/pipelines', { name: `Pipeline ${randomBase62(4)}`, stages: stages.map((name) => ({ name })) }) as Promise<{
    id: string;
    stages: { id: string; name: string }[];
  }>;
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
  const count = async (table: 'contacts' | 'notes' | 'opportunities' | 'submissions' | 'webhook_outbox') =>
    Number((await database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow()).n);
  const keys = Number((await database.db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  // The webhook outbox too: a refused submission must not queue its events either.
  return { contacts: await count('contacts'), notes: await count('notes'), opportunities: await count('opportunities'), submissions: await count('submissions'), webhookOutbox: await count('webhook_outbox'), idempotencyKeys: keys };
}
