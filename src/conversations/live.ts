import type { Conversation, ConversationMessage } from './schema.js';

/**
 * Live conversation events (issue 35): what the Inbox's and the visitors' event streams hear, once a change has
 * committed. One in-process bus: `publish` hands a change to this node's subscribers, by organization (the
 * Inbox) and by conversation (a visitor's stream); with REDIS_URL it is attached to one Redis pub/sub channel
 * (the infrastructure's attachCacheBus, as the caches' invalidations travel), so every node's subscribers hear
 * every node's changes, each node publishing once per change whatever its subscribers. No stream subscribes to
 * Redis itself.
 *
 * `{all: true}` is what the channel says after Redis came back: messages may have been missed, so every
 * subscriber is told (`lost`) and the streams end, for their clients to reconnect and catch up (a visitor's
 * stream replays from the database with Last-Event-ID; the Inbox reloads).
 */

/** One committed change of a conversation: its state after it (when it changed) and the messages it added. */
export interface LiveChange {
  orgId: string;
  conversationId: string;
  conversation?: Conversation | undefined;
  messages: ConversationMessage[];
}

export type LiveMessage = (LiveChange & { all?: undefined }) | { all: true };

export interface LiveListener {
  change(change: LiveChange): void;
  /** Messages may have been lost (Redis reconnected): the stream should end so its client catches up. */
  lost(): void;
}

export function createLiveEvents() {
  const byOrg = new Map<string, Set<LiveListener>>();
  const byConversation = new Map<string, Set<LiveListener>>();
  let bus: { publish(message: LiveMessage): void } | undefined;

  function add(map: Map<string, Set<LiveListener>>, key: string, listener: LiveListener): () => void {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && map.get(key) === set) map.delete(key);
    };
  }

  function tell(set: Set<LiveListener> | undefined, call: (listener: LiveListener) => void): void {
    if (!set) return;
    for (const listener of [...set]) {
      try {
        call(listener);
      } catch {
        // One stream's failure is its own; the change is committed and the others still hear it.
      }
    }
  }

  /** A change (this node's or, through the bus, another's) told to this node's subscribers. */
  function applyLocally(message: LiveMessage): void {
    if (message.all) {
      for (const set of [...byOrg.values(), ...byConversation.values()]) tell(set, (listener) => listener.lost());
      return;
    }
    tell(byOrg.get(message.orgId), (listener) => listener.change(message));
    tell(byConversation.get(message.conversationId), (listener) => listener.change(message));
  }

  return {
    /** After the change committed: this node's subscribers now, the other nodes' through Redis when attached. */
    publish(change: LiveChange): void {
      applyLocally(change);
      bus?.publish(change);
    },
    subscribeOrg: (orgId: string, listener: LiveListener) => add(byOrg, orgId, listener),
    subscribeConversation: (conversationId: string, listener: LiveListener) => add(byConversation, conversationId, listener),
    applyLocally,
    attachBus(attached: { publish(message: LiveMessage): void }): void {
      bus = attached;
    },
  };
}

export type LiveEvents = ReturnType<typeof createLiveEvents>;
