import { execFileSync } from 'node:child_process';

/**
 * The agent-side benchmarks' common set-up: a developer, an app and an organization made with the
 * CLI (before the server starts), then through the APIs a published `shipping_quote` tool at the
 * given endpoint, installed for one agent.
 */

export interface BenchAccounts {
  app: { clientId: string; clientSecret: string };
  /** `email` and `password`: the organization's owner, who can sign in to the console (bench/oauth-connection.ts). */
  org: { orgId: string; apiKey: string; email: string; password: string };
}

/** Runs `switchboard <args> --json` against the benchmark's data (its env). */
export function benchCli(env: Record<string, string>) {
  return (...args: string[]) =>
    JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args, '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' })) as Record<string, any>;
}

export function seedAccounts(env: Record<string, string>): BenchAccounts {
  const cli = benchCli(env);
  const stamp = Date.now();
  cli('developer', 'create', '--email', `bench-dev-${stamp}@example.com`, '--password', 'benchmark-password', '--name', 'Bench');
  const app = cli('app', 'create', '--developer', `bench-dev-${stamp}@example.com`, '--name', 'Bench');
  const ownerEmail = `bench-op-${stamp}@example.com`;
  const org = cli('org', 'create', '--name', 'Bench Shop', '--email', ownerEmail, '--password', 'benchmark-password');
  return { app: { clientId: app.clientId, clientSecret: app.clientSecret }, org: { orgId: org.orgId, apiKey: org.apiKey, email: ownerEmail, password: 'benchmark-password' } };
}

/** A JSON call to the server; anything but 2xx throws. */
export async function benchApi(serverUrl: string, method: string, path: string, auth: string, body?: unknown): Promise<any> {
  const res = await fetch(`${serverUrl}${path}`, {
    method, headers: { authorization: `Bearer ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: unknown }).data;
}

/** An access token of the benchmark's developer app (client credentials), for the Developer API. */
export async function developerToken(serverUrl: string, accounts: BenchAccounts): Promise<string> {
  const tokenRes = await fetch(`${serverUrl}/api/dev/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: accounts.app.clientId, client_secret: accounts.app.clientSecret }).toString(),
  });
  return ((await tokenRes.json()) as { access_token: string }).access_token;
}

/**
 * Creates and publishes a tool shaped like `shipping_quote` (weightKg, country) at `toolUrl`, under another name and
 * with other fields when given (`authType`, `oauth`): its id.
 */
export async function publishQuoteShapedTool(serverUrl: string, devToken: string, toolUrl: string, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await benchApi(serverUrl, 'POST', '/api/dev/tools', devToken, {
    name: 'shipping_quote',
    description: 'Returns a shipping quote for a parcel: weight in kilograms and destination country.',
    endpoint: toolUrl,
    category: 'ecommerce',
    parameters: [
      { name: 'weightKg', type: 'number', description: 'Parcel weight in kilograms.', required: true },
      { name: 'country', type: 'string', description: 'ISO 3166 alpha-2 destination.', required: true },
    ],
    ...fields,
  });
  await benchApi(serverUrl, 'POST', `/api/dev/tools/${created.id}/publish`, devToken, {});
  return created.id as string;
}

/** Publishes `shipping_quote` (weightKg, country) at `toolUrl` and installs it for a new agent. */
export async function publishQuoteTool(serverUrl: string, accounts: BenchAccounts, toolUrl: string): Promise<{ toolId: string; agentId: string }> {
  const toolId = await publishQuoteShapedTool(serverUrl, await developerToken(serverUrl, accounts), toolUrl);
  const agent = await benchApi(serverUrl, 'POST', '/api/org/agents', accounts.org.apiKey, {
    name: 'Bench bot',
    branding: { name: 'Bench', primaryColor: '#1a73e8', backgroundColor: '#ffffff', textColor: '#202124', logoUrl: 'https://bench.example/logo.png' },
  });
  await benchApi(serverUrl, 'POST', '/api/org/installations', accounts.org.apiKey, { toolId });
  return { toolId, agentId: agent.id };
}
