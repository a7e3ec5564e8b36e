import { createChangeFeed, type ChangeFeed } from '../lib/change-feed.js';

/**
 * "This tool's live revision changed": it was published (a new revision or again after a
 * withdrawal), withdrawn, or deleted. The tools feature notifies with the tool id after the
 * write commits; caches of what agents may call (invocation/tool-cache.ts) subscribe and drop
 * every entry built from the tool, so an unpublished tool stops at once and a new revision is
 * used from the next call on. Built once, in the infrastructure.
 */
export type ToolChangeFeed = ChangeFeed;
export const createToolChangeFeed: () => ToolChangeFeed = createChangeFeed;
