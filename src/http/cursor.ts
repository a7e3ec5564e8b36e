import type { CursorPosition } from '../db/query-helpers.js';
import { AppError } from './errors.js';

export type { CursorPosition };

/**
 * Opaque keyset cursor over (createdAt, id), newest first. Keyset paging stays
 * correct while rows are added and costs the same on page 1 and page 1000.
 */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const ANY_ID = /^[a-z]+_[0-9A-Za-z]{1,40}$/;

export function decodeCursor(cursor: string | undefined): CursorPosition | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // Only what nextCursor ever holds: an ISO time and an id. A forged cursor never reaches a query.
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && ISO_TIME.test(value[0]) && ANY_ID.test(value[1])) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError('VALIDATION_ERROR', 'The cursor is not valid. Use the nextCursor of a previous page.', { field: 'cursor' });
}

/** Given `limit + 1` rows, the page and the cursor of the next one. */
export function toPage<T extends { createdAt: string; id: string }, R>(rows: T[], limit: number, present: (row: T) => R): { items: R[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map(present),
    nextCursor: more && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}
