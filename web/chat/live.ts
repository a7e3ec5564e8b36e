import type { ChatApi } from './api.js';
import type { ChatEvent } from './types.js';

/**
 * The conversation's live events (`GET …/session/events`, read with fetch: EventSource cannot send the
 * session's `Authorization`), kept open while the widget wants them and resumed from the last event id.
 *
 * - Each event's `id:` is remembered; a new connection sends it as `Last-Event-ID`, and the server replays
 *   every later message before going live, so a drop, a hidden page or a closed panel loses nothing.
 * - A dropped or refused connection is tried again after 1 s, 2 s, 4 s… up to 30 s, each wait a random
 *   50–100 % of that (so a server restart is not met by every widget at once); a connection that brought
 *   anything starts the count again. 401 (the session ended: the next message finds out and starts a new
 *   one), 403 and 404 (the chat is off or not here) stop it until the widget wants it again.
 * - A connection silent for 70 s (the server says `: keep-alive` every 25 s) is taken as dead and replaced:
 *   a network change can leave a fetch waiting forever without an error.
 */
export const RETRY_MS = 1_000;
export const RETRY_MAX_MS = 30_000;
export const SILENT_MS = 70_000;

export interface LiveStream {
  /** Opens the stream (when `on` and not open), or closes it. */
  want(on: boolean): void;
  /** Where to resume from (the history's last message id), or undefined to start from now. */
  last: string | undefined;
}

export function liveStream(api: ChatApi, token: () => string | null, onEvents: (events: ChatEvent[]) => void): LiveStream {
  let current: AbortController | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let wanted = false;
  const self: LiveStream = { want, last: undefined };

  async function connect(): Promise<void> {
    retry = undefined;
    const session = token();
    if (!wanted || current || !session) return;
    const abort = (current = new AbortController());
    let heard = false;
    let silent: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(silent);
      silent = setTimeout(() => abort.abort(), SILENT_MS);
    };
    alive();
    const outcome = await api.live(session, self.last, abort.signal, {
      open() {},
      read() {
        heard = true;
        alive();
      },
      events(events) {
        for (const event of events) if (event.lastEventId) self.last = event.lastEventId;
        onEvents(events);
      },
    });
    clearTimeout(silent);
    // Closed on purpose (want(false)): nothing more to do.
    if (current !== abort) return;
    current = null;
    if (!outcome.ok && outcome.status > 400 && outcome.status < 405) return void (wanted = false);
    failures = heard ? 0 : failures + 1;
    const wait = Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** failures);
    retry = setTimeout(connect, wait * (0.5 + Math.random() / 2));
  }

  function want(on: boolean): void {
    wanted = on;
    if (on) {
      if (!retry) void connect();
      return;
    }
    clearTimeout(retry);
    retry = undefined;
    current?.abort();
    current = null;
  }

  return self;
}
