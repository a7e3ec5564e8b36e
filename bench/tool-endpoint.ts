import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

/**
 * The tool endpoint of the tools benchmark: HTTPS on 127.0.0.1 only (PORT), with the test CA's
 * certificate (TLS_KEY_FILE, TLS_CERT_FILE), answering every request with a small JSON after
 * reading its body. Tells its parent over IPC when it listens.
 */
const body = Buffer.from(JSON.stringify({ quote: 12.5, currency: 'EUR', carrier: 'Bench Parcel', days: 3 }));
const server = createServer({ key: readFileSync(process.env.TLS_KEY_FILE!), cert: readFileSync(process.env.TLS_CERT_FILE!), keepAliveTimeout: 30_000 }, (request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
