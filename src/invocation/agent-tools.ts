import type { LiveRevision } from '../catalog/service.js';
import type { Credentials } from './schema.js';

/*
 * What an agent may call, as the installations service resolves it (service.ts), the tool cache
 * keeps it (tool-cache.ts), the invoker calls it (invoker.ts) and listings format it (formats.ts).
 * Its own file so that the service and the cache, which both need these types, do not import each
 * other (the import cycle test/import-cycles.test.ts refuses).
 */

/** What the invoker needs to call an agent's tool. Credentials are plaintext: never log or return them. */
export interface CallableTool {
  installationId: string;
  name: string;
  live: LiveRevision;
  credentials: Partial<Record<keyof Credentials, string>>;
  /** Set when stored values could not be opened (a key that is no longer configured). */
  credentialsUnreadable: boolean;
}

/** An agent's callable tool before credentials are opened: what listings show. */
export interface AgentTool {
  installationId: string;
  name: string;
  live: LiveRevision;
}

/**
 * What one agent may call, resolved once per node instead of on every call (4–5 queries and
 * a decryption each): its installations' live revisions, in listing order, and by name the
 * callable tool with its credentials already opened. Plaintext credentials live only in this
 * process's memory, as they do during a call; never log an entry.
 */
export interface ResolvedAgentTools {
  tools: AgentTool[];
  byName: Map<string, CallableTool>;
}
