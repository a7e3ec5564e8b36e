import { readFileSync } from 'node:fs';

/** The package version, read once; sent as `User-Agent: Switchboard/<version>` and shown in the API reference. */
function readVersion(): string {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'switchboard' && pkg.version) return pkg.version;
    } catch {
      // try the next location: src/ in development, dist/src/ when built
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
