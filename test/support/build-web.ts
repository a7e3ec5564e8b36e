import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/**
 * vitest globalSetup: builds the browser code into dist/web once per run, so the hosted page,
 * form-embed.js and the browser tests serve what `npm run build` would (web-assets.ts reads it).
 */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '../..');
  execFileSync(process.execPath, [join(root, 'scripts/build-web.mjs'), '--quiet'], { stdio: 'inherit' });
}
