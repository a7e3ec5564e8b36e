import { createServer } from 'node:net';

/**
 * A TCP port that is free on loopback now: the system picks it, we let it go. Tests and the
 * benchmarks use it (scripts/with-services.mjs has its own: plain Node cannot import TypeScript).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
