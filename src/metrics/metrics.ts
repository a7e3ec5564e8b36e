import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's metrics in Prometheus' text format (prom-client), one registry per running app
 * (no global): HTTP requests by route, method and status with their latency; tool calls by outcome
 * and path with their latency; form submissions by outcome; rate-limit refusals by rule; cache
 * lookups by cache and result; the PostgreSQL pool; and prom-client's process defaults (CPU,
 * memory, handles, GC, event-loop lag). docs/operations.md lists every series.
 *
 * Counting costs a label lookup and an add: 0.15–0.3 µs per count in a loop here (prom-client 15, Node 20),
 * about 1% of the cheapest request (a cached form config, ~19 µs of CPU). The HTTP histogram is observed only
 * when metrics are served (METRICS_PORT or METRICS_TOKEN), so a server nobody scrapes does not pay for it.
 */

/** Latency buckets (seconds): tool calls and answers from 1 ms to 30 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface PoolStats {
  /** Connections open (in use or idle). */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface Metrics {
  registry: Registry;
  /** An answered HTTP request: `route` is the route's pattern (`/api/org/agents/:id`), never the raw path. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** A tool call, as logged: `outcome` OK or its error code; `path` operator, mcp, test or conversation. */
  toolCall(outcome: string, path: string, milliseconds: number): void;
  /** A form submission: `accepted`, `replayed`, `honeypot`, or the error code it was refused with. */
  submission(outcome: string): void;
  /** A request refused by a rate limit rule (its name: `submit`, `token`, …). */
  rateLimited(rule: string): void;
  /** A lookup in a per-node cache (`form`, `tool`, `key`). */
  cacheLookup(cache: string, hit: boolean): void;
  /** Reports the database pool on each scrape (PostgreSQL; SQLite has one connection and no pool). */
  watchPool(stats: () => PoolStats): void;
}

/**
 * A prom-client counter whose counts are kept as plain numbers and handed to it when it is read
 * (its `collect`, on each scrape). The counters counted on every tool call (its outcome, and a hit in
 * the key and tool caches) cost prom-client's label hashing each time: 0.13 µs an increment, where
 * adding to a number found by a key we make costs 0.01 (measured alone, prom-client 15, Node 20).
 * `key` names one combination of labels; `labels` makes them the first time it is seen.
 */
function countedOnScrape<L extends string>(options: { name: string; help: string; labelNames: readonly L[]; registers: Registry[] }) {
  const pending = new Map<string, { labels: Record<L, string>; count: number }>();
  new Counter({
    ...options,
    collect() {
      for (const entry of pending.values()) {
        if (entry.count === 0) continue;
        this.inc(entry.labels, entry.count);
        entry.count = 0;
      }
    },
  });
  return {
    add(key: string, labels: () => Record<L, string>): void {
      let entry = pending.get(key);
      if (entry === undefined) {
        entry = { labels: labels(), count: 0 };
        pending.set(key, entry);
      }
      entry.count++;
    },
  };
}

/** METRICS_PORT / METRICS_HOST: a listener of their own; METRICS_TOKEN: `GET /metrics` on the main port with that bearer token. Neither: not served. */
export interface MetricsConfig {
  port: number | undefined;
  host: string;
  token: string | undefined;
}

/** Whether anything serves the metrics (METRICS_PORT or METRICS_TOKEN): the process defaults and the HTTP histogram are kept only then. */
export const metricsServed = (config: { metrics: MetricsConfig }): boolean => config.metrics.port !== undefined || config.metrics.token !== undefined;

export function createMetrics(options: { processDefaults: boolean }): Metrics {
  const registry = new Registry();
  // prom-client's defaults: process CPU, memory, open handles, GC and event-loop lag (sampled every 20 ms).
  if (options.processDefaults) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const registers = [registry];

  const httpRequests = new Counter({ name: 'switchboard_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status.', labelNames: ['route', 'method', 'status'] as const, registers });
  const httpDuration = new Histogram({ name: 'switchboard_http_request_duration_seconds', help: 'Time from a request\'s arrival to its answer, by route pattern, method and status.', labelNames: ['route', 'method', 'status'] as const, buckets: LATENCY_BUCKETS, registers });
  const toolCalls = countedOnScrape({ name: 'switchboard_tool_calls_total', help: 'Tool calls, by outcome (OK or the error code) and path (operator, mcp, test, conversation).', labelNames: ['outcome', 'path'] as const, registers });
  const toolDuration = new Histogram({ name: 'switchboard_tool_call_duration_seconds', help: 'Tool call duration as logged (the endpoint\'s time and Switchboard\'s), by outcome.', labelNames: ['outcome'] as const, buckets: LATENCY_BUCKETS, registers });
  const submissions = new Counter({ name: 'switchboard_form_submissions_total', help: 'Form submissions, by outcome: accepted, replayed (an Idempotency-Key seen before), honeypot, or the error code.', labelNames: ['outcome'] as const, registers });
  const rateLimited = new Counter({ name: 'switchboard_rate_limit_refusals_total', help: 'Requests refused with 429 by a rate limit, by rule.', labelNames: ['rule'] as const, registers });
  const cacheLookups = countedOnScrape({ name: 'switchboard_cache_lookups_total', help: 'Per-node cache lookups, by cache and result (hit or miss).', labelNames: ['cache', 'result'] as const, registers });

  return {
    registry,
    httpRequest: (route, method, status, seconds) => {
      const labels = { route, method, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    toolCall: (outcome, path, milliseconds) => {
      toolCalls.add(`${outcome} ${path}`, () => ({ outcome, path }));
      toolDuration.observe({ outcome }, milliseconds / 1000);
    },
    submission: (outcome) => submissions.inc({ outcome }),
    rateLimited: (rule) => rateLimited.inc({ rule }),
    cacheLookup: (cache, hit) => cacheLookups.add(hit ? `${cache} hit` : `${cache} miss`, () => ({ cache, result: hit ? 'hit' : 'miss' })),
    watchPool: (stats) => {
      new Gauge({
        name: 'switchboard_db_pool_connections', help: 'PostgreSQL pool connections: in_use, idle, and waiting (queries queued for a connection).', labelNames: ['state'] as const, registers,
        collect() {
          const now = stats();
          this.set({ state: 'in_use' }, now.total - now.idle);
          this.set({ state: 'idle' }, now.idle);
          this.set({ state: 'waiting' }, now.waiting);
        },
      });
    },
  };
}
