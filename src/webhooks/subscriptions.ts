/**
 * What an organization's enabled webhook endpoints receive, read once per unit of work
 * (repos.webhooks.subscriptions) and handed to the outbox writer with the unit's events: one read
 * answers "does anyone want this type?" (no payload is built otherwise) and "which endpoints get a
 * delivery?" for every event the unit emits.
 */
export interface Subscriptions {
  /** Some enabled endpoint receives `type`. */
  has(type: string): boolean;
  /** The ids of the enabled endpoints that receive `type`, in the order read. */
  endpointsFor(type: string): readonly string[];
  /** No enabled endpoint at all: the unit writes no event. */
  readonly empty: boolean;
}

export function subscriptionsOf(endpoints: ReadonlyArray<{ id: string; events: readonly string[] }>): Subscriptions {
  const byType = new Map<string, string[]>();
  for (const endpoint of endpoints) {
    for (const type of endpoint.events) {
      const ids = byType.get(type);
      if (ids) ids.push(endpoint.id);
      else byType.set(type, [endpoint.id]);
    }
  }
  return {
    has: (type) => byType.has(type),
    endpointsFor: (type) => byType.get(type) ?? [],
    empty: byType.size === 0,
  };
}
