import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { randomBase62 } from '../lib/ids.js';

/**
 * Carries cache invalidations (the form cache's, and the tool and key caches' of
 * lib/tagged-cache.ts, each on its own channel) to every app node over Redis pub/sub. Each node
 * applies its own invalidations at once and ignores their echo. Pub/sub does not
 * replay what a node missed while disconnected, so on every reconnect the node
 * drops its whole cache (`resync`) rather than serve what it may have missed.
 */
export async function createRedisInvalidationBus<M extends object>(deps: {
  publisher: Redis;
  subscriber: Redis;
  channel: string;
  apply(message: M): void;
  resync(): void;
  log: FastifyBaseLogger;
}): Promise<{ publish(message: M): void }> {
  const { publisher, subscriber, channel, apply, resync, log } = deps;
  const origin = randomBase62(12);

  subscriber.on('message', (received: string, payload: string) => {
    if (received !== channel) return;
    try {
      const message = JSON.parse(payload) as M & { origin?: string };
      if (message.origin !== origin) apply(message);
    } catch {
      log.warn({ channel }, 'cache invalidation: ignored a malformed message');
    }
  });
  let connectedBefore = subscriber.status === 'ready';
  subscriber.on('ready', () => {
    if (connectedBefore) resync();
    connectedBefore = true;
  });

  // Wait briefly for the subscription, so a node that starts serving also hears invalidations;
  // if Redis is down the node starts anyway (the cache TTL bounds staleness) and subscribes on reconnect.
  const subscribed = subscriber.subscribe(channel).then(
    () => true,
    (error: unknown) => {
      log.warn({ err: error, channel }, 'cache invalidation: could not subscribe yet');
      return false;
    },
  );
  await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, 3000).unref())]);

  return {
    publish: (message) => {
      publisher.publish(channel, JSON.stringify({ ...message, origin })).catch((error: unknown) => {
        log.warn({ err: error, channel }, 'cache invalidation: could not publish; other nodes catch up within the cache TTL');
      });
    },
  };
}
