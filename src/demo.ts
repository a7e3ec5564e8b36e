import { Writable } from 'node:stream';
import { buildApp } from './app.js';
import { generatePassword } from './operators/operators-service.js';
import { AppError } from './http/errors.js';
import { randomBase62 } from './lib/ids.js';
import type { Services } from './services.js';

const DEMO_EMAIL = 'demo@example.com';

const LEADS = [
  { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+1 415 555 0101', message: 'Is Saturday morning possible?', service: 'Cleaning', utm: { utm_source: 'newsletter', utm_campaign: 'spring' } },
  { name: 'Grace Hopper', email: 'grace@example.com', phone: '+1 415 555 0102', message: 'A chipped tooth, quite urgent.', service: 'Emergency', utm: { utm_source: 'google', utm_medium: 'cpc' } },
  { name: 'Alan Turing', email: 'alan@example.com', phone: '', message: 'First visit for the whole family.', service: 'Check-up', utm: {} },
];

/**
 * `switchboard demo`: an organization to click through in the console, made through the real
 * services and the Operator API (the app, without a listening socket): its owner (credentials
 * printed), a branded agent, a custom select field, a form using it, and a few submissions, each
 * with its contact and an opportunity in the default pipeline; and a tool developer with an OAuth
 * app (client secret printed once) to try the Developer API. A second run makes another one.
 */
export async function seedDemo(services: Services): Promise<Record<string, unknown>> {
  const { config, database, orgs, developers } = services;
  const taken = (await database.db.selectFrom('users').select('id').where('email', '=', DEMO_EMAIL).executeTakeFirst()) !== undefined;
  const suffix = randomBase62(6).toLowerCase();
  const email = taken ? `demo-${suffix}@example.com` : DEMO_EMAIL;
  const password = generatePassword();
  const created = await orgs.createOrganization({ name: 'Bright Smile Dental (demo)', email, password, operatorName: 'Demo Operator' });
  const auth = { authorization: `Bearer ${created.apiKey.key}` };

  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  // The app over the same services: it closes without closing them (the caller does).
  const app = await buildApp({ config: { ...config, logLevel: 'silent' }, database, services, logStream: quiet });
  try {
    const call = async (method: 'POST', url: string, payload: unknown, remoteAddress?: string) => {
      const res = await app.inject({ method, url, headers: auth, payload: payload as object, ...(remoteAddress ? { remoteAddress } : {}) });
      if (res.statusCode >= 300) throw new AppError('INTERNAL_ERROR', `The demo could not be seeded: ${method} ${url} answered ${res.statusCode} ${res.body}`);
      return (res.json() as { data: Record<string, unknown> }).data;
    };
    const agent = await call('POST', '/api/org/agents', {
      name: 'Front desk',
      branding: { name: 'Bright Smile Dental', primaryColor: '#0f766e', backgroundColor: '#ffffff', textColor: '#1f2937', fontFamily: 'system-ui, sans-serif', logoUrl: 'https://placehold.co/120x40/png' },
    });
    await call('POST', '/api/org/custom-fields', { key: 'service', entity: 'contact', label: 'Service', type: 'select', options: ['Check-up', 'Cleaning', 'Emergency'] });
    const slug = `demo-${suffix}`;
    const form = await call('POST', '/api/org/forms', {
      slug,
      title: 'Book a visit',
      fields: { phone: { enabled: true, required: false }, message: { enabled: true, required: false } },
      customFields: [{ key: 'service', required: true }],
      consentText: 'I agree that Bright Smile Dental may contact me about my request.',
      successMessage: 'Thank you! We will call you back within a day.',
      agentId: agent.id,
      createOpportunity: true,
    });
    for (const [i, lead] of LEADS.entries()) {
      await call('POST', `/api/public/forms/${slug}/submit`, {
        consentVersion: form.consentVersion,
        name: lead.name,
        email: lead.email,
        ...(lead.phone ? { phone: lead.phone } : {}),
        message: lead.message,
        custom: { service: lead.service },
        metadata: lead.utm,
      }, `198.51.100.${i + 10}`);
    }
  } finally {
    await app.close();
  }

  const developer = await developers.createDeveloper({ email: `demo-developer-${suffix}@example.com`, password: generatePassword(), name: 'Demo Developer' });
  const oauthApp = await developers.createApp({ developerEmail: developer.email, name: 'Demo tools' });

  return {
    ...(taken ? { note: `A demo organization already exists (${DEMO_EMAIL}); this is another one.` } : {}),
    signIn: `${config.publicUrl}/app/signin`,
    email,
    password,
    orgId: created.org.id,
    form: `${config.publicUrl}/f/demo-${suffix}`,
    apiKey: created.apiKey.key,
    developer: { email: developer.email, clientId: oauthApp.clientId, clientSecret: oauthApp.clientSecret, tokenUrl: `${config.publicUrl}/api/dev/oauth/token` },
    next: 'Start the server (npm start), open the sign-in address and use the email and password above: the form, its submissions, contacts and opportunities are there. The developer\'s clientId and clientSecret get a Developer API token (client_credentials).',
  };
}
