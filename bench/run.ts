import { execSync } from 'node:child_process';
import { benchConsole } from './console.js';
import { benchConversations } from './conversations.js';
import { benchDeveloperApi } from './developer-api.js';
import { benchErase } from './erase.js';
import { benchForms } from './forms.js';
import { benchIdleStreams } from './idle-streams.js';
import { printGrid, printTable, type Row } from './lib.js';
import { benchTools } from './tools.js';
import { benchWebhooks } from './webhooks.js';

/**
 * `npm run bench`: every benchmark, each against a bare Fastify baseline measured in the same run.
 * BENCH_SECONDS sets the length of each run (default 10); BENCH_DATABASE_URL adds PostgreSQL rows;
 * BENCH_ONLY=developer|forms|tools|conversations|webhooks|streams|console|erase runs one group (erase: only when named). The servers inherit the environment, so SQLITE_SYNCHRONOUS=full
 * (or any other setting) applies to them.
 */
// The servers under test run the compiled build, as `npm start` does.
execSync('npm run -s build', { stdio: 'inherit' });

const only = process.env.BENCH_ONLY;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const rows: Row[] = [];

if (!only || only === 'developer') {
  rows.push(...(await benchDeveloperApi()));
  if (databaseUrl) rows.push(...(await benchDeveloperApi({ databaseUrl })));
}
if (!only || only === 'forms') {
  rows.push(...(await benchForms()));
  if (databaseUrl) rows.push(...(await benchForms({ databaseUrl })));
}
if (!only || only === 'tools') {
  rows.push(...(await benchTools()));
  if (databaseUrl) rows.push(...(await benchTools({ databaseUrl })));
}
if (!only || only === 'webhooks') {
  rows.push(...(await benchWebhooks()));
  if (databaseUrl) rows.push(...(await benchWebhooks({ databaseUrl })));
}
const conversations: string[][] = [];
if (!only || only === 'conversations') {
  conversations.push(...(await benchConversations()));
  if (databaseUrl) conversations.push(...(await benchConversations({ databaseUrl })));
}
const erasures: string[][] = [];
if (only === 'erase') {
  erasures.push(...(await benchErase()));
  if (databaseUrl) erasures.push(...(await benchErase({ databaseUrl })));
}
const streams: string[][] = [];
if (!only || only === 'streams') {
  streams.push(...(await benchIdleStreams()));
  if (databaseUrl) streams.push(...(await benchIdleStreams({ databaseUrl })));
}
const consoleRows: string[][] = [];
if (!only || only === 'console') consoleRows.push(...(await benchConsole()));

console.log(`\nSwitchboard benchmarks — ${new Date().toISOString()}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores, 50 connections, ${process.env.BENCH_SECONDS ?? 10} s each\n`);
printTable(rows);
if (conversations.length) {
  console.log('\nAgent conversations, against a scripted model and tool endpoint on loopback (bench/conversations.ts)\n');
  printGrid(['scenario', 'figures', 'goal'], conversations);
}
if (erasures.length) {
  console.log('\nErasing a person (bench/erase.ts)\n');
  printGrid(['scenario', 'figures', 'goal'], erasures);
}
if (streams.length) {
  console.log('\nIdle chat widget streams on one node (bench/idle-streams.ts)\n');
  printGrid(['scenario', 'figures', 'goal'], streams);
}
if (consoleRows.length) {
  console.log('\nThe console\'s first page, in Chromium (bench/console.ts)\n');
  printGrid(['scenario', 'figures', 'goal'], consoleRows);
}
