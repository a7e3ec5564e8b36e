import { readFileSync } from 'node:fs';

/**
 * `npx tsx bench/profile-top.ts <.cpuprofile> [lines] [skip ms] [requests]`: the functions with the most self time,
 * and the self time by package (node_modules/<name>, node:, src/…), as shares of the samples while the thread was
 * busy; samples in the first <skip ms> (start-up, warm-up) left out; with <requests>, µs per request too.
 */
interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const [path, linesArg, skipArg, requestsArg] = process.argv.slice(2);
const skipUs = Number(skipArg ?? 0) * 1000;
const requests = Number(requestsArg ?? 0);
const profile = JSON.parse(readFileSync(path!, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let at = 0;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if (at >= skipUs) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
let busy = 0;
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  if (functionName === '(idle)') continue;
  busy += us;
  const short = url.replace(/^file:\/\/.*?node_modules\//, 'nm/').replace(/^file:\/\/.*?\/dist\//, 'dist/');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const pkg = url.includes('node_modules/') ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1') : url.startsWith('node:') ? 'node:' : url.includes('/dist/') ? url.replace(/^.*\/dist\/(src\/[^/]+|web\/[^/]+).*$/, '$1') : url === '' ? functionName : 'other';
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}
const perRequest = (us: number) => (requests ? `${(us / requests).toFixed(2).padStart(6)} µs  ` : '');
const show = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, us]) => console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${perRequest(us)}${k}`));
console.log(`busy ${(busy / 1000).toFixed(0)} ms${requests ? `, ${(busy / requests).toFixed(2)} µs per request` : ''}`);
console.log('\nby package');
show(byPackage, 20);
console.log('\nby function (self)');
show(byFunction, Number(linesArg ?? 40));
