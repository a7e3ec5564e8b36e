/**
 * "The thing with this id changed": writers notify after their write commits; caches built
 * from it subscribe and drop their entries. A listener that throws neither fails the write
 * (already committed) nor keeps the other listeners from hearing it. What a feed's ids name
 * and who notifies is written where each feed is defined (orgs/changes.ts, tools/changes.ts).
 *
 * In-process only: a cache that spans nodes relays the invalidation on its own bus
 * (the infrastructure's attachCacheBus).
 */
export type ChangeListener = (id: string) => void;

export function createChangeFeed() {
  const listeners = new Set<ChangeListener>();
  return {
    /** Returns the unsubscribe function. */
    subscribe(listener: ChangeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify(id: string): void {
      for (const listener of listeners) {
        try {
          listener(id);
        } catch {
          // The write already committed; a cache that missed this drops the entry at its TTL.
        }
      }
    },
  };
}

export type ChangeFeed = ReturnType<typeof createChangeFeed>;
