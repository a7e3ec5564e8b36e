import react from '@vitejs/plugin-react';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The console: built into dist/web/console (served under /app by the server), every script and
 * stylesheet a hashed file under assets/, nothing inline, so the console's CSP
 * (`script-src 'self'; style-src 'self'`) holds. `vite` alone serves it for development, with the
 * JSON APIs proxied to a server on SWITCHBOARD_URL (default http://127.0.0.1:3000).
 */
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const target = process.env.SWITCHBOARD_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: here,
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: resolve(repo, 'dist/web/console'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every asset is a file: a data: URL in a stylesheet or script would be inline content.
    assetsInlineLimit: 0,
    manifest: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
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
});
