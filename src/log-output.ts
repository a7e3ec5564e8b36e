import type { DestinationStream } from 'pino';
import type { Config } from './config.js';

/**
 * Where the server's log lines go, and in which form. JSON lines on standard output (pino's own, the form a log
 * collector reads) unless a person is reading: in development, when standard output is a terminal, pino's own
 * pretty printer (pino-pretty) prints each line as one colored line — time, level, message, then its fields —
 * as Fastify's guides do. LOG_FORMAT (config.ts) says `json` or `pretty` instead of guessing; production is JSON
 * whatever is set (config.ts refuses LOG_FORMAT=pretty there). The lines are the same either way: the same levels
 * (each request's two lines stay at info), the same request ids, and the same redaction, which pino applies before
 * a line reaches any stream (http/redact.ts).
 */
export type LogFormat = 'json' | 'pretty';

/** The format of this process's logs (a unit test holds every case). */
export function chooseLogFormat(config: Pick<Config, 'env' | 'logFormat'>, stdoutIsTTY: boolean): LogFormat {
  if (config.env === 'production') return 'json';
  if (config.logFormat !== 'auto') return config.logFormat;
  return config.env === 'development' && stdoutIsTTY ? 'pretty' : 'json';
}

/**
 * pino-pretty's settings: one line per entry (fields as JSON on the same line), the local time of day, no
 * pid or hostname (the same on every line of one terminal), written synchronously so the last lines before an
 * exit are printed. Colors are pino-pretty's own choice: on for a terminal, off under NO_COLOR.
 */
export const PRETTY_OPTIONS = {
  singleLine: true,
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname',
  sync: true,
} as const;

type PrettyFactory = (options: typeof PRETTY_OPTIONS) => DestinationStream;

export interface LogOutput {
  format: LogFormat;
  /** The stream pino writes to; undefined: pino's own standard output, JSON lines. */
  stream: DestinationStream | undefined;
  /** Said once in the log when pretty was chosen but cannot be had. */
  notice?: string;
}

/**
 * The stream for `format`. pino-pretty is a development dependency, imported only when pretty is chosen, so a
 * production install (`npm ci --omit=dev`) never loads it; if it is missing there, the logs stay JSON and say so.
 */
export async function logOutput(format: LogFormat, loadPretty: () => Promise<PrettyFactory> = importPretty): Promise<LogOutput> {
  if (format === 'json') return { format, stream: undefined };
  try {
    const pretty = await loadPretty();
    return { format, stream: pretty(PRETTY_OPTIONS) };
  } catch {
    return { format: 'json', stream: undefined, notice: 'pretty logs need pino-pretty, a development dependency (npm install): logging JSON instead' };
  }
}

async function importPretty(): Promise<PrettyFactory> {
  // By name in a variable: the compiler does not require a package that a production install leaves out.
  const name = 'pino-pretty';
  const module = (await import(name)) as { default: PrettyFactory };
  return module.default;
}
