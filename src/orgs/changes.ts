import { createChangeFeed, type ChangeFeed } from '../lib/change-feed.js';

/**
 * "Something that public form configs are built from changed in this org": a custom field
 * definition, an agent's brand, a pipeline or stage, or the org's default country (submit reads
 * national phone numbers with it, and the cached live form carries it). Whatever writes one of
 * these notifies with the org id, after the write (deleting an agent too); the caches built from
 * them subscribe and drop the org's entries: the public form cache, the key cache (a deleted
 * agent's keys) and the tool cache (a deleted agent's tools). Built once, in the infrastructure.
 */
export type OrgChangeFeed = ChangeFeed;
export const createOrgChangeFeed: () => OrgChangeFeed = createChangeFeed;
