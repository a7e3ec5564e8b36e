import { createWebhookTestContext } from '../test/support/webhook-context.js';
import { createForm, getConfig, submit } from '../test/support/form-factories.js';
import { createOrgWithKey, orgCaller } from '../test/support/org-factories.js';
import { fixedResolver, TEST_DNS } from '../test/support/tools-factories.js';

const dialect = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const t = await createWebhookTestContext(dialect, { resolveHost: fixedResolver(TEST_DNS) });
const call = orgCaller(t.app);
const plain = await createOrgWithKey(t.database, t.clock);
const hooked = await createOrgWithKey(t.database, t.clock);
const res = await call('POST', '/api/org/webhooks', hooked, { url: 'https://hooks.example.com/in', events: ['submission.created', 'contact.created', 'opportunity.created'] });
if (res.statusCode !== 201) throw new Error(res.body);
const formA = await createForm(t.app, plain, { createOpportunity: true, fields: { message: { enabled: true, required: false } } });
const formB = await createForm(t.app, hooked, { createOpportunity: true, fields: { message: { enabled: true, required: false } } });
await getConfig(t.app, formA.slug); await getConfig(t.app, formB.slug);
let n = 0;
async function batch(form: typeof formA, count: number, parallel = 20) {
  const started = performance.now();
  for (let i = 0; i < count; i += parallel) {
    await Promise.all(Array.from({ length: parallel }, async () => {
      const r = await submit(t.app, form.slug, { consentVersion: form.consentVersion, email: `p${n++}@example.com`, name: 'Ada', message: 'I would like a check-up next week, mornings if possible.', metadata: { utm_source: 'bench' } });
      if (r.statusCode !== 200) throw new Error(r.body);
    }));
  }
  return (performance.now() - started) / count;
}
await batch(formA, 1000); await batch(formB, 1000);
const a: number[] = [], b: number[] = [];
for (let round = 0; round < 6; round++) { a.push(await batch(formA, 1000)); b.push(await batch(formB, 1000)); }
const med = (x: number[]) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
console.log(`${dialect}: no webhook ${(med(a) * 1000).toFixed(0)} µs/submit, webhook ${(med(b) * 1000).toFixed(0)} µs/submit, ratio ${(med(a) / med(b)).toFixed(2)}`);
await t.close();
