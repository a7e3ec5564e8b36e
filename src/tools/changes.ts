/**
 * "This tool's live revision changed": it was published (a new revision or again after a
 * withdrawal), withdrawn, or deleted. The tools feature notifies after the write commits;
 * caches of what agents may call (invocation/tool-cache.ts) subscribe and drop every entry
 * built from the tool, so an unpublished tool stops at once and a new revision is used from
 * the next call on. Built once, in the infrastructure.
 *
 * In-process only, like the org change feed: a cache that spans nodes relays the
 * invalidation on its own bus.
 */
export type ToolChangeListener = (toolId: string) => void;

export function createToolChangeFeed() {
  const listeners = new Set<ToolChangeListener>();
  return {
    subscribe(listener: ToolChangeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify(toolId: string): void {
      for (const listener of listeners) {
        try {
          listener(toolId);
        } catch {
          // The write already committed; a cache that missed this drops the entry at its TTL.
        }
      }
    },
  };
}

export type ToolChangeFeed = ReturnType<typeof createToolChangeFeed>;
