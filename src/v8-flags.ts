import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings for the server process, imported first by main.ts (and `switchboard serve`), so they
 * hold before the app's code runs.
 *
 * `--no-allocation-site-pretenuring`: V8 watches where objects are allocated and, when a scavenge finds
 * many of one site's objects still alive, allocates that site's objects straight into the old generation
 * from then on. A server caught mid-burst by such a scavenge (50 requests in flight, say) has its
 * per-request objects pretenured for good: they then die in the old generation, which only full
 * mark-compacts reclaim. Which process falls into it is chance. `npm run bench:pretenuring` starts
 * identical servers with and without this flag: without it, about half served the public config GET
 * at 38–43 µs of CPU per request (RSS 290 MB; each scavenge 5 ms and promoting 4.5 MB) and the others at
 * 22–24 µs (RSS 176 MB; 0.5 ms); with it, 12 of 12 at 19–24 µs (2026-11-26). A request's objects live
 * for a millisecond or two: the young generation is where they belong.
 *
 * `node --allocation-site-pretenuring dist/src/main.js` keeps V8's default (the benchmark does, to show the difference).
 */
if (!process.execArgv.includes('--allocation-site-pretenuring')) setFlagsFromString('--no-allocation-site-pretenuring');
