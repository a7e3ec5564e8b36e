import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesEtag, pickEncoding } from './in-memory.js';

/**
 * Sending a server-rendered HTML page (the hosted form page, the public catalog): its own CSP, the
 * headers every page of ours carries, an ETag answered with 304 on If-None-Match, and the body
 * compressed (brotli or gzip, as the client accepts) once per page object, so a cached page is
 * compressed once however often it is sent.
 */
export interface HtmlPage {
  status: number;
  html: Buffer;
  csp: string;
  etag?: string;
  gzip?: Buffer;
  br?: Buffer;
}

// Lower-case names: Fastify lower-cases each name it is given, per request (see app.ts).
const COMMON_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  vary: 'Accept-Encoding',
};

/** The hash source a CSP allows one inline `<style>` by. */
export function styleHash(style: string): string {
  return `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
}

export function sendHtmlPage(request: FastifyRequest, reply: FastifyReply, page: HtmlPage, cacheControl: string): FastifyReply {
  reply.headers(COMMON_HEADERS).header('content-security-policy', page.csp).header('cache-control', cacheControl);
  if (page.etag) {
    reply.header('etag', page.etag);
    if (matchesEtag(request.headers['if-none-match'], page.etag)) return reply.code(304).send();
  }
  reply.code(page.status);
  const encoding = pickEncoding(request.headers['accept-encoding']);
  if (encoding === 'br') {
    page.br ??= brotliCompressSync(page.html, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: page.html.length } });
    return reply.header('content-encoding', 'br').send(page.br);
  }
  if (encoding === 'gzip') {
    page.gzip ??= gzipSync(page.html, { level: 9 });
    return reply.header('content-encoding', 'gzip').send(page.gzip);
  }
  return reply.send(page.html);
}
