import react from '@vitejs/plugin-react';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/**
 * The console: built into dist/web/console (served under /app by the server), every script and
 * stylesheet a hashed file under assets/, nothing inline, so the console's CSP
 * (`script-src 'self'; style-src 'self'`) holds. `vite` alone serves it for development, with the
 * JSON APIs proxied to a server on SWITCHBOARD_URL (default http://127.0.0.1:3000).
 */
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const target = process.env.SWITCHBOARD_URL ?? 'http://127.0.0.1:3000';
/**
 * React Router's package points every import at its development build, whose warnings are code the console would
 * ship; its production build (the same code with them off) is what a build takes (docs/benchmarks.md, issue 37).
 */
const reactRouterProduction = resolve(repo, 'node_modules/react-router/dist/production/index.mjs');

/**
 * What React Router's production build carries that the console never runs (docs/benchmarks.md, issue 37):
 * - every component it defines, used or not: `React.forwardRef(…)`, `React.memo(…)` and `React.createContext(…)` are
 *   calls the bundler must assume have effects, each followed by a `X.displayName = "…"` write (a name for React's
 *   developer tools). Marked pure, without the names, the unused ones go (`<Form>`, `<ScrollRestoration>`…);
 * - its console warnings for developers (a route path with a stray `*`, a <Navigate> in a static render…), a fifth
 *   of its strings: their calls marked pure, they go with their messages. `npm run dev:console` keeps them.
 * - framework mode's prefetching of a link's page (`<PrefetchPageLinks>`, route modules, the manifest): a `<Link>`
 *   renders it only under framework mode's context (`usePrefetchBehavior` answers false without it), which a data
 *   router like the console's never has.
 * Only React Router's production files are touched; its thrown errors (`invariant`) stay. A pattern that stops
 * matching in a later version only leaves the code in (`scripts/console-size.mjs` then tells).
 */
const reactRouterForProduction = (): Plugin => ({
  name: 'switchboard:react-router-for-production',
  apply: 'build',
  transform: {
    filter: { id: /[\\/]react-router[\\/]dist[\\/]production[\\/].*\.mjs$/ },
    handler: (code) => ({
      code: code
        .replace(/\b(React\d*\.(?:forwardRef|memo|createContext)\()/g, '/* @__PURE__ */ $1')
        .replace(/^[A-Za-z_$][\w$]*\.displayName = "[^"\n]*";$/gm, '')
        .replace(/(?<!function )\b(warning|warningOnce|warnOnce)\(/g, '/* @__PURE__ */ $1(')
        .replace(/\/\* @__PURE__ \*\/ React\d*\.createElement\(PrefetchPageLinks, \{ page: href \}\)/, 'null'),
      map: null,
    }),
  },
});

export default defineConfig(({ command }) => ({
  root: here,
  base: '/app/',
  plugins: [react(), reactRouterForProduction()],
  resolve: { alias: command === 'build' ? [{ find: /^react-router$/, replacement: reactRouterProduction }] : [] },
  build: {
    outDir: resolve(repo, 'dist/web/console'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every asset is a file: a data: URL in a stylesheet or script would be inline content.
    assetsInlineLimit: 0,
    manifest: true,
    target: 'es2022',
    // No polyfill for <link rel=modulepreload> (every browser of es2022 but Safari before 17 has it; there it only preloads less).
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      output: {
        // The sign-in page's form helpers in one chunk instead of five of a few hundred bytes each (each file costs
        // its own request, its imports and a compression that starts from nothing); the pages that share them take
        // the few they do not use with them (docs/benchmarks.md, issue 37).
        codeSplitting: {
          groups: [
            {
              name: 'forms',
              test: /[\\/]web[\\/]console[\\/]src[\\/](components[\\/]fields|lib[\\/](errors|format|useAction|useFormErrors))\.tsx?$/,
              includeDependenciesRecursively: false,
            },
          ],
        },
      },
    },
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    // The session cookie and the Origin check expect one origin: the proxy rewrites Origin to the API's.
    proxy: Object.fromEntries(
      ['/api', '/f/', '/form-embed.js', '/assets/'].map((path) => [
        path,
        {
          target,
          changeOrigin: true,
          configure: (proxy) => proxy.on('proxyReq', (req) => req.getHeader('origin') && req.setHeader('origin', new URL(target).origin)),
        },
      ]),
    ),
  },
  preview: { host: '127.0.0.1', port: 4173 },
}));
