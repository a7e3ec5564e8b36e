// Imported into every process of a command run by scripts/node24.mjs (NODE_OPTIONS=--import), worker threads too.
// node_modules' better-sqlite3 addon is built for Node 20's ABI, which Node 24 refuses: load the copy that
// scripts/node24.mjs built for the running ABI in its place. Only that file, and only when such a copy exists
// (scripts/node24.mjs imports this file for CACHE and addonFile: under Node 20 no copy exists, nothing changes).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CACHE = fileURLToPath(new URL('../.cache/node24', import.meta.url));

/** Where scripts/node24.mjs keeps better-sqlite3 `version` built for the ABI `abi` (process.versions.modules). */
export function addonFile(version, abi) {
  return join(CACHE, `better-sqlite3-${version}-abi${abi}`, 'better_sqlite3.node');
}

const BUILT = /[/\\]better-sqlite3[/\\]build[/\\]Release[/\\]better_sqlite3\.node$/;

function replacement(filename) {
  if (!BUILT.test(filename)) return filename;
  const { version } = JSON.parse(readFileSync(join(filename, '..', '..', '..', 'package.json'), 'utf8'));
  const copy = addonFile(version, process.versions.modules);
  return existsSync(copy) ? copy : filename;
}

const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  return dlopen.call(this, module, replacement(filename), ...rest);
};
