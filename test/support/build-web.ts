import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/**
 * vitest globalSetup: builds the browser code into dist/web once per run, so the hosted page,
 * form-embed.js and the browser tests serve what `npm run build` would (web-assets.ts reads it).
 * With TEST_BROWSER set it builds the console too (dist/web/console, what `npm run build:console`
 * makes): the console's browser tests drive the real build.
 */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '../..');
  execFileSync(process.execPath, [join(root, 'scripts/build-web.mjs'), '--quiet'], { stdio: 'inherit' });
  if (process.env.TEST_BROWSER) {
    execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(root, 'web/console/vite.config.ts'), '--logLevel', 'warn'], {
      cwd: root,
      stdio: 'inherit',
      // vitest sets NODE_ENV=test, which would give React's development build: test what ships.
      env: { ...process.env, NODE_ENV: 'production' },
    });
  }
}
