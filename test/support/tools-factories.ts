import type { App } from '../../src/http/app-type.js';
import type { HostResolver } from '../../src/net/resolver.js';
import { randomBase62 } from '../../src/lib/ids.js';
import type { ToolRecord } from '../../src/tools/schema.js';

/**
 * DNS for tests: the sandbox has none, and tests must not depend on it. Names missing
 * from the table fail like getaddrinfo's ENOTFOUND.
 */
export const TEST_DNS: Record<string, string[]> = {
  'api.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'tools.example.net': ['198.41.0.4'],
  'internal.example.com': ['10.0.0.5'],
  'rebind.example.com': ['93.184.215.14', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:192.168.1.20'],
};

export function fixedResolver(table: Record<string, string[]> = TEST_DNS): HostResolver {
  return async (hostname) => {
    const answers = table[hostname.toLowerCase()];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers;
  };
}

/** A valid create body with a unique name; override any field. */
export function toolInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `quote_${randomBase62(8)}`,
    description: 'Returns a shipping quote for a parcel: weight in kilograms and destination country.',
    endpoint: 'https://api.example.com/quote',
    parameters: [
      { name: 'weightKg', type: 'number', description: 'Parcel weight in kilograms.', required: true },
      { name: 'country', type: 'string', description: 'ISO 3166 alpha-2 destination.', required: true },
    ],
    ...overrides,
  };
}

type Headers = Record<string, string>;

export async function createTool(app: App, auth: Headers, overrides: Record<string, unknown> = {}): Promise<ToolRecord> {
  const res = await app.inject({ method: 'POST', url: '/api/dev/tools', headers: auth, payload: toolInput(overrides) });
  if (res.statusCode !== 201) throw new Error(`create tool failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: ToolRecord }).data;
}

export async function publishTool(app: App, auth: Headers, id: string): Promise<ToolRecord> {
  const res = await app.inject({ method: 'POST', url: `/api/dev/tools/${id}/publish`, headers: auth });
  if (res.statusCode !== 200) throw new Error(`publish failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: ToolRecord }).data;
}

export async function updateTool(app: App, auth: Headers, id: string, changes: Record<string, unknown>): Promise<ToolRecord> {
  const res = await app.inject({ method: 'PUT', url: `/api/dev/tools/${id}`, headers: auth, payload: changes });
  if (res.statusCode !== 200) throw new Error(`update failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: ToolRecord }).data;
}
