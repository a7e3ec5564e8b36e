import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { newId } from '../lib/ids.js';
import { AppError } from './errors.js';

/**
 * Node's HTTP parser reports the request line and the headers against one size limit, as one error
 * (HPE_HEADER_OVERFLOW). The chunk it failed on tells them apart when that chunk starts the request:
 * if its first line does not end within the limit, the URL alone is too long. A URL that arrived in
 * many small reads no longer shows where it began, and is answered as headers too large.
 */
function isRequestLineOverflow(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet) || !/^[A-Z-]+ /.test(packet.subarray(0, 16).toString('latin1'))) return false;
  const lineEnd = packet.indexOf(0x0a);
  return lineEnd === -1 || lineEnd >= maxHeaderSize;
}

function refusalFor(error: ConnectionError): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request took too long to arrive: send the headers and body without pausing.');
    case 'HPE_HEADER_OVERFLOW':
      return isRequestLineOverflow(error.rawPacket)
        ? new AppError('URI_TOO_LONG', `The request URL is too long (the limit is ${maxHeaderSize} bytes).`)
        : new AppError('HEADERS_TOO_LARGE', `The request line and headers are too large (the limit is ${maxHeaderSize} bytes).`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are too large.');
    default:
      return new AppError('VALIDATION_ERROR', 'The request is not valid HTTP/1.1.');
  }
}

/** A complete HTTP response in the error shape, to write straight to the socket. */
function rawResponse(error: AppError, requestId: string): string {
  const body = JSON.stringify({ success: false, error: error.message, code: error.code, requestId });
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Fastify's `clientErrorHandler`: requests Node refuses before Fastify sees them (over-long URL or
 * headers, a request that took too long to arrive, malformed HTTP) are answered in our error shape
 * instead of Node's or Fastify's own bodies. There is no request object, so the response is
 * written to the socket directly, and the connection is closed.
 */
export function clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  // A reset or closed connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = refusalFor(error);
  const requestId = newId('req');
  this.log.info({ reqId: requestId, code: refusal.code, reason: error.code }, 'request refused');
  // As Node does: once a response on this connection has begun, our bytes would corrupt it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(rawResponse(refusal, requestId));
  socket.destroy();
}
