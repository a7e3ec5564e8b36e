import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * `npx tsx bench/profile-by-window.ts <server .cpuprofile> <windows .json> [lines]`: a server profile of the tools
 * benchmark split by path. `BENCH_TOOLS_WINDOWS=/tmp/windows` (bench/tools.ts) writes when each measured run was,
 * on the monotonic clock a `--cpu-prof` profile's timestamps use; each sample is given to the path whose run it fell
 * in, and divided by that path's calls. Prints, per path, the thread's busy time per call by category, and when
 * both `bearer` and `oauth2` ran, their differences by function (self time, and inclusive time in src/), with the
 * compiled build's lines mapped back to src/ through its source maps.
 */

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] }
interface Windows { windows: Array<{ name: string; startUs: number; endUs: number }>; calls: Record<string, number[]> }

const [profilePath, windowsPath, linesArg] = process.argv.slice(2);
if (!profilePath || !windowsPath) {
  console.error('usage: npx tsx bench/profile-by-window.ts <server .cpuprofile> <windows .json> [lines]');
  process.exit(2);
}
const lines = Number(linesArg ?? 25);
const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as Profile;
const { windows, calls } = JSON.parse(readFileSync(windowsPath, 'utf8')) as Windows;

const maps = new Map<string, SourceMap | null>();
/** `src/<dir>/<file>.ts:<line>` for a frame of the compiled build (its source maps, read with Node's own SourceMap). */
function original(url: string, line: number, column: number): string | undefined {
  if (!url.startsWith('file://') || !url.includes('/dist/src/')) return undefined;
  const file = fileURLToPath(url);
  if (!maps.has(file)) maps.set(file, existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))) : null);
  const entry = maps.get(file)?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
  if (!entry?.originalSource || entry.originalLine === undefined) return undefined;
  const dir = file.split('/dist/src/')[1]!.replace(/[^/]+$/, '');
  return `src/${dir}${entry.originalSource.split('/').pop()}:${entry.originalLine + 1}`;
}

const nodes = new Map<number, ProfileNode>();
const parent = new Map<number, number>();
for (const node of profile.nodes) {
  nodes.set(node.id, node);
  for (const child of node.children ?? []) parent.set(child, node.id);
}
const keys = new Map<number, string>();
function keyOf(id: number): string {
  let key = keys.get(id);
  if (key === undefined) {
    const { functionName, url, lineNumber, columnNumber } = nodes.get(id)!.callFrame;
    const where = url ? original(url, lineNumber, columnNumber) ?? `${url.replace(/^file:\/\/.*?\/(node_modules\/)/, '$1')}:${lineNumber + 1}` : '';
    key = `${functionName || '(anonymous)'} ${where}`.trim();
    keys.set(id, key);
  }
  return key;
}
/** Where a sample's time belongs: the nearest frame (from the leaf) in src/ or a package, else Node or native. */
function category(id: number): string {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { url, functionName } = nodes.get(at)!.callFrame;
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)') return '(program)';
    if (url.includes('/dist/src/')) return `src/${/src\/([^/]+)\//.exec(keyOf(at))?.[1] ?? '?'}`;
    if (url.includes('node_modules/')) {
      const [scope, name] = url.split('node_modules/').pop()!.split('/');
      return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
    }
  }
  const { url, functionName } = nodes.get(id)!.callFrame;
  return url.startsWith('node:') ? 'Node internals' : url === '' ? `native ${functionName}` : 'other';
}

const times: number[] = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas) times.push((clock += delta));

interface Tally { calls: number; busy: number; self: Map<string, number>; inclusive: Map<string, number>; categories: Map<string, number> }
function tally(name: string): Tally {
  const spans = windows.filter((w) => w.name === name);
  const total = (calls[name] ?? []).reduce((sum, n) => sum + n, 0);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const categories = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const at = times[i]!;
    if (!spans.some((w) => at >= w.startUs && at < w.endUs)) continue;
    const us = (times[i + 1] ?? at) - at;
    const id = profile.samples[i]!;
    if (nodes.get(id)!.callFrame.functionName === '(idle)') continue;
    busy += us;
    add(self, keyOf(id), us);
    add(categories, category(id), us);
    const seen = new Set<string>();
    for (let frame: number | undefined = id; frame !== undefined; frame = parent.get(frame)) {
      const key = keyOf(frame);
      if (!seen.has(key)) add(inclusive, key, us);
      seen.add(key);
    }
  }
  const perCall = (map: Map<string, number>) => new Map([...map].map(([key, us]) => [key, us / Math.max(1, total)]));
  return { calls: total, busy: busy / Math.max(1, total), self: perCall(self), inclusive: perCall(inclusive), categories: perCall(categories) };
}

const tallies = new Map([...new Set(windows.map((w) => w.name))].map((name) => [name, tally(name)]));
for (const [name, t] of tallies) {
  console.log(`\n${name}: ${t.calls} calls, thread busy ${t.busy.toFixed(2)} µs a call`);
  console.log(`  ${[...t.categories].sort((a, b) => b[1] - a[1]).map(([key, us]) => `${key} ${us.toFixed(2)}`).join(', ')}`);
}
const bearer = tallies.get('bearer');
const oauth2 = tallies.get('oauth2');
if (bearer && oauth2) {
  const differences = (a: Map<string, number>, b: Map<string, number>) =>
    [...new Set([...a.keys(), ...b.keys()])]
      .map((key) => ({ key, from: a.get(key) ?? 0, to: b.get(key) ?? 0 }))
      .sort((x, y) => Math.abs(y.to - y.from) - Math.abs(x.to - x.from));
  const print = (rows: Array<{ key: string; from: number; to: number }>) => {
    for (const { key, from, to } of rows.slice(0, lines)) console.log(`  ${(to - from >= 0 ? '+' : '') + (to - from).toFixed(2)}  ${from.toFixed(2)} → ${to.toFixed(2)}  ${key}`);
  };
  console.log(`\noauth2 − bearer, µs a call: thread busy ${(oauth2.busy - bearer.busy).toFixed(2)} (${bearer.busy.toFixed(2)} → ${oauth2.busy.toFixed(2)})`);
  console.log('by category');
  print(differences(bearer.categories, oauth2.categories));
  console.log('self time, by function');
  print(differences(bearer.self, oauth2.self));
  console.log('inclusive time, functions in src/');
  print(differences(bearer.inclusive, oauth2.inclusive).filter(({ key }) => / src\//.test(key)));
}
