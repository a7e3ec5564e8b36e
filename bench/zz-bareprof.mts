import { load, startChild } from './lib.js';
const body = process.env.BODY!;
const bare = await startChild('bench/bare-server.ts', { BARE_BODY: body }, '/healthz', ['--cpu-prof', '--cpu-prof-dir=/tmp/profbare']);
let n = 0;
const r = await load({ url: `${bare.url}/api/public/forms/x`, serverPid: bare.pid, seconds: 6, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': `10.0.${(++n >> 8) & 255}.${n & 255}` } }) });
console.log(r);
await bare.stop();
