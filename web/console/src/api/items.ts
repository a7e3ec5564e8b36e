import type { Page } from './types';

/** A list answer as items: the session API's bare arrays and the Operator API's pages alike. */
export function itemsOf<T>(answer: T[] | Page<T>): T[] {
  return Array.isArray(answer) ? answer : answer.items;
}
