import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers kept in memory, for the few paths hit on every visit: `/form-embed.js` (forms/asset-routes.ts),
 * the hosted page (forms/hosted-page.ts) and the console's index.html (web/console-routes.ts). Everything
 * else static goes from disk through @fastify/static (http/plugins.ts), which costs a stat, an open and
 * a stream per request: 113 µs of server CPU instead of 22 for form-embed.js, 103 instead of 22 for the
 * console's /app/ (bench/compare.ts, 2026-11-26), far over the 5% a change of plumbing may cost.
 */

/** A file's bytes, the build's compressed copies when it wrote them, and a strong ETag of the bytes. */
export interface InMemoryFile {
  identity: Buffer;
  gzip?: Buffer | undefined;
  br?: Buffer | undefined;
  etag: string;
}

/** A strong ETag of some bytes: 22 characters of their SHA-256. */
export function etagOf(bytes: Buffer | string): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
}

/** `dir/name` with its `.gz` and `.br` copies (scripts/build-web.mjs and scripts/precompress.mjs write them). */
export function readInMemoryFile(dir: string, name: string): InMemoryFile {
  const path = join(dir, name);
  const copy = (suffix: string) => (existsSync(path + suffix) ? readFileSync(path + suffix) : undefined);
  const identity = readFileSync(path);
  return { identity, gzip: copy('.gz'), br: copy('.br'), etag: etagOf(identity) };
}

/** Weak comparison (RFC 9110 §13.1.2): `W/` is ignored, and `*` matches any current representation. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/** The best encoding the client accepts: br, then gzip, else none (q=0 refuses). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const accepted = new Set<string>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    if (name) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}

/**
 * Sends a file from memory after the caller's headers (type, caching, security): its ETag, 304 when
 * If-None-Match matches, else the copy the client accepts with `Content-Encoding` and `Vary: Accept-Encoding`.
 */
export function sendFromMemory(request: FastifyRequest, reply: FastifyReply, file: InMemoryFile): FastifyReply {
  reply.header('ETag', file.etag).header('Vary', 'Accept-Encoding');
  if (matchesEtag(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  const encoding = pickEncoding(request.headers['accept-encoding']);
  const copy = encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : undefined;
  if (!copy) return reply.send(file.identity);
  return reply.header('Content-Encoding', encoding).send(copy);
}
