import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/**/*.test.ts'],
    pool: 'forks',
    // dist/web (form-embed.js, the hosted page's script and stylesheet), built once per run.
    globalSetup: ['test/support/build-web.ts'],
    // No test may open a connection outside loopback (test/support/loopback-only.ts).
    setupFiles: ['test/support/loopback-only.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Browser suites need Chromium; they run in test:all (see scripts/with-services.mjs).
    exclude: process.env.TEST_BROWSER ? ['node_modules/**'] : ['node_modules/**', '**/*.browser.test.ts'],
  },
});
