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
 * The demo developer's tool. Its endpoint is httpbin.org's echo (`/anything` answers any request with
 * JSON describing it), so a call from the demo agent really returns something when the server is
 * online: the model's arguments, `_svc_context` and the signature headers, as the endpoint saw them.
 */
const DEMO_TOOL = {
  name: 'check_availability',
  description: 'Checks which appointment times are free on a given day. Use it when a visitor asks to book a visit.',
  endpoint: 'https://httpbin.org/anything/availability',
  authType: 'hmac',
  category: 'scheduling',
  parameters: [
    { name: 'date', type: 'string', description: 'The day to check, as YYYY-MM-DD.', required: true },
    { name: 'service', type: 'string', description: 'What the visit is for: Check-up, Cleaning or Emergency.', required: false },
  ],
} as const;

/**
 * `switchboard demo`: an organization to click through in the console, made through the real
 * services and the Operator API (the app, without a listening socket): its owner (credentials
 * printed), a branded agent, a custom select field, a form using it, and a few submissions, each
 * with its contact and an opportunity in the default pipeline; and a tool developer (credentials
 * printed) with an OAuth app (client secret printed once) and a tool, created and published through
 * the Developer API with the app's token and enabled for the demo agent. A second run makes another one.
 *
 * Publishing needs the endpoint's host to resolve to a public address; offline it does not, and the
 * tool stays a draft (the output says so): publish it from the portal once online.
 */
export async function seedDemo(services: Services): Promise<Record<string, unknown>> {
  const { config, database, orgs, developers } = services;
  let toolOutcome: Record<string, unknown> = {};
  const taken = (await database.db.selectFrom('users').select('id').where('email', '=', DEMO_EMAIL).executeTakeFirst()) !== undefined;
  const suffix = randomBase62(6).toLowerCase();
  const email = taken ? `demo-${suffix}@example.com` : DEMO_EMAIL;
  const password = generatePassword();
  const created = await orgs.createOrganization({ name: 'Bright Smile Dental (demo)', email, password, operatorName: 'Demo Operator' });
  const auth = { authorization: `Bearer ${created.apiKey.key}` };

  const developerPassword = generatePassword();
  let developer: Awaited<ReturnType<typeof developers.createDeveloper>> | undefined;
  let oauthApp: Awaited<ReturnType<typeof developers.createApp>> | undefined;

  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  // The app over the same services: it closes without closing them (the caller does).
  const app = await buildApp({ config: { ...config, logLevel: 'silent' }, database, services, logStream: quiet });
  try {
    const send = (url: string, payload: unknown, options: { headers?: Record<string, string>; remoteAddress?: string } = {}) =>
      app.inject({ method: 'POST', url, headers: options.headers ?? auth, payload: payload as object, ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}) });
    const call = async (url: string, payload: unknown, options: { headers?: Record<string, string>; remoteAddress?: string } = {}) => {
      const res = await send(url, payload, options);
      if (res.statusCode >= 300) throw new AppError('INTERNAL_ERROR', `The demo could not be seeded: POST ${url} answered ${res.statusCode} ${res.body}`);
      return (res.json() as { data: Record<string, unknown> }).data;
    };
    const agent = await call('/api/org/agents', {
      name: 'Front desk',
      branding: { name: 'Bright Smile Dental', primaryColor: '#0f766e', backgroundColor: '#ffffff', textColor: '#1f2937', fontFamily: 'system-ui, sans-serif', logoUrl: 'https://placehold.co/120x40/png' },
    });
    await call('/api/org/custom-fields', { key: 'service', entity: 'contact', label: 'Service', type: 'select', options: ['Check-up', 'Cleaning', 'Emergency'] });
    const slug = `demo-${suffix}`;
    const form = await call('/api/org/forms', {
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
      await call(`/api/public/forms/${slug}/submit`, {
        consentVersion: form.consentVersion,
        name: lead.name,
        email: lead.email,
        ...(lead.phone ? { phone: lead.phone } : {}),
        message: lead.message,
        custom: { service: lead.service },
        metadata: lead.utm,
      }, { remoteAddress: `198.51.100.${i + 10}` });
    }

    // The developer side, through the Developer API as a developer's own script would use it.
    developer = await developers.createDeveloper({ email: `demo-developer-${suffix}@example.com`, password: developerPassword, name: 'Demo Developer' });
    oauthApp = await developers.createApp({ developerEmail: developer.email, name: 'Demo tools' });
    const token = await app.inject({
      method: 'POST',
      url: '/api/dev/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: oauthApp.clientId, client_secret: oauthApp.clientSecret }).toString(),
    });
    const developerAuth = { authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` };
    const tool = await call('/api/dev/tools', DEMO_TOOL, { headers: developerAuth });
    const published = await send(`/api/dev/tools/${String(tool.id)}/publish`, undefined, { headers: developerAuth });
    if (published.statusCode === 200) {
      // The organization enables it for its agent, with the shared secret calls are signed with.
      const installation = await call('/api/org/installations', { toolId: tool.id, agentIds: [agent.id], credentials: { secret: randomBase62(32) } });
      toolOutcome = { toolId: tool.id, installationId: installation.id };
    } else {
      const refusal = (published.json() as { error?: string }).error ?? `answered ${published.statusCode}`;
      toolOutcome = { toolId: tool.id, toolNote: `The tool ${DEMO_TOOL.name} is a draft: it could not be published (${refusal}). Publish it from the developer portal once the server is online.` };
    }
  } finally {
    await app.close();
  }


  return {
    ...(taken ? { note: `A demo organization already exists (${DEMO_EMAIL}); this is another one.` } : {}),
    signIn: `${config.publicUrl}/app/signin`,
    email,
    password,
    orgId: created.org.id,
    form: `${config.publicUrl}/f/demo-${suffix}`,
    apiKey: created.apiKey.key,
    developer: {
      email: developer?.email,
      password: developerPassword,
      clientId: oauthApp?.clientId,
      clientSecret: oauthApp?.clientSecret,
      tokenUrl: `${config.publicUrl}/api/dev/oauth/token`,
      ...toolOutcome,
    },
    next:
      'Start the server (npm start), open the sign-in address and use the email and password above: the form, its submissions, contacts and opportunities are there, and the agent has the developer\'s tool. ' +
      'Sign in with the developer\'s email and password for the developer portal (the app and the tool); the clientId and clientSecret get a Developer API token (client_credentials).',
  };
}
