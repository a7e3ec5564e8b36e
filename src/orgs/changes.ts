/**
 * "Something that public form configs are built from changed in this org": a custom field
 * definition, an agent's brand, a pipeline or stage, or the org's default country (submit reads
 * national phone numbers with it, and the cached live form carries it). Whatever writes one of
 * these notifies, after the write (deleting an agent too); the caches built from them
 * subscribe and drop the org's entries: the public form cache, the key cache (a deleted agent's
 * keys) and the tool cache (a deleted agent's tools). Built once, in the infrastructure.
 *
 * In-process only: a cache that spans nodes relays the invalidation on its own bus.
 */
export type OrgChangeListener = (orgId: string) => void;

export function createOrgChangeFeed() {
  const listeners = new Set<OrgChangeListener>();
  return {
    subscribe(listener: OrgChangeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify(orgId: string): void {
      for (const listener of listeners) {
        try {
          listener(orgId);
        } catch {
          // The write already committed; a cache that missed this drops the entry at its TTL.
        }
      }
    },
  };
}

export type OrgChangeFeed = ReturnType<typeof createOrgChangeFeed>;
