import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

type PinoParent = FastifyBaseLogger & { isLevelEnabled(level: string): boolean; levels: { values: Record<string, number> } };

/**
 * A request's logger, made on first use. Fastify gives every request a child
 * logger bound to its id; pino builds a child by serializing (and redacting) the
 * bindings, about 2 µs. At `warn` and above, where a busy node runs, most requests
 * never log a line (at `info` each writes its access lines, so the child is made on
 * the first). Calls below the parent's level return at once; the first call that
 * would write makes the real child, so every line still carries `reqId`.
 */
class LazyRequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: PinoParent,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** Whether a line at `level` would be written: by the route's own level (Fastify's `logLevel` option) if it has one. */
  private enabled(level: Level): boolean {
    const own = this.options.level;
    if (own === undefined) return this.parent.isLevelEnabled(level);
    const values = this.parent.levels.values;
    return (values[level] ?? 0) >= (values[own] ?? Number.POSITIVE_INFINITY);
  }

  private real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: Level, args: unknown[]): void {
    if (this.#child === undefined && !this.enabled(level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: request loggers that cost nothing until they write. */
export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(logger as PinoParent, bindings, options);
}
