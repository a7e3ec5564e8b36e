import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Browser suites need Chromium; they run in test:all (see scripts/with-services.mjs).
    exclude: process.env.TEST_BROWSER ? ['node_modules/**'] : ['node_modules/**', '**/*.browser.test.ts'],
  },
});
