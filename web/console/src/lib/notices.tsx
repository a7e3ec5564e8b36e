import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';

/**
 * Notices: short confirmations ("Agent created", "Saved.") read out through one polite live region
 * (errors stay beside what failed, not here). A notice leaves by itself after NOTICE_MS, or by its
 * button; its time stands still while the pointer is on the notices or focus is in them (WCAG 2.2.1:
 * nobody loses a message while reading or reaching it), and runs on from where it stopped.
 *
 * Placement: the region is part of the page's flow (a strip under the top bar, NoticeRegion in the
 * layouts), not an overlay. A fixed corner covered whatever lay beneath it (the contact's consent
 * record, a form's buttons), and no reserved margin can keep a fixed box off content that scrolls
 * under it; a strip in the flow moves the page down while it shows and covers nothing. A navigation
 * starts the new page at its top (lib/focus.ts), so the notice of "created, now open it" is in view; one
 * given while the page is scrolled down (a save at the foot of a long form) is read out, and the page
 * itself shows the change, but a sighted person sees it only when back at the top: the price of never covering.
 *
 * The state lives in a provider over every route (no module-level store): a notice given just before
 * a navigation (sign-up, then the forms page) is shown by the next page's region.
 */

/** Long enough to read two short sentences (about 25 words at 300 words a minute); longer while paused. */
export const NOTICE_MS = 5000;
/** At most this many at once: the oldest leaves first. */
const MAX_NOTICES = 3;

interface Notice {
  id: number;
  text: string;
}

interface NoticesState {
  notices: Notice[];
  notify: (text: string) => void;
  dismiss: (id: number) => void;
}

const NoticesContext = createContext<NoticesState | null>(null);

export function NoticesProvider({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const next = useRef(0);
  const notify = useCallback((text: string) => {
    const id = ++next.current;
    setNotices((list) => [...list.slice(-(MAX_NOTICES - 1)), { id, text }]);
  }, []);
  const dismiss = useCallback((id: number) => setNotices((list) => list.filter((notice) => notice.id !== id)), []);
  const value = useMemo(() => ({ notices, notify, dismiss }), [notices, notify, dismiss]);
  return <NoticesContext.Provider value={value}>{children}</NoticesContext.Provider>;
}

function useNotices(): NoticesState {
  const state = useContext(NoticesContext);
  if (!state) throw new Error('useNotify needs a NoticesProvider above it (routes.tsx, Root)');
  return state;
}

/** `notify(text)`: shows a notice and has it announced. */
export function useNotify(): (text: string) => void {
  return useNotices().notify;
}

/** One notice: its own timer, stopped while `paused`, resumed with the time it had left. */
function NoticeItem({ notice, paused, onDismiss }: { notice: Notice; paused: boolean; onDismiss: (id: number, byButton: boolean) => void }) {
  const left = useRef(NOTICE_MS);
  useEffect(() => {
    if (paused) return;
    const started = Date.now();
    const timer = setTimeout(() => onDismiss(notice.id, false), left.current);
    return () => {
      clearTimeout(timer);
      left.current = Math.max(0, left.current - (Date.now() - started));
    };
  }, [paused, notice.id, onDismiss]);
  return (
    <div className="notices-item">
      <span>{notice.text}</span>
      <button type="button" className="notices-close" aria-label="Dismiss notification" onClick={() => onDismiss(notice.id, true)}>
        ×
      </button>
    </div>
  );
}

/**
 * Where the notices show, in the layout's flow. The live region is in the page before anything is put
 * in it (the list is drawn from the second render on), so a notice given on another page is announced too.
 */
export function NoticeRegion() {
  const { notices, dismiss } = useNotices();
  const region = useRef<HTMLDivElement>(null);
  const [ready, setReady] = useState(false);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  useEffect(() => setReady(true), []);
  // The strip folds away with its last notice, without a pointerleave or blur: nothing holds the next one.
  useEffect(() => {
    if (notices.length) return;
    setHovered(false);
    setFocused(false);
  }, [notices.length]);

  const onDismiss = useCallback(
    (id: number, byButton: boolean) => {
      // The button goes with its notice: focus goes to the page's content rather than to nowhere.
      if (byButton) {
        document.getElementById('main')?.focus({ preventScroll: true });
        setFocused(false);
      }
      dismiss(id);
    },
    [dismiss],
  );

  return (
    <div
      ref={region}
      className="notices"
      role="status"
      aria-live="polite"
      aria-label="Notifications"
      onPointerEnter={() => setHovered(true)}
      onPointerLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => setFocused(region.current?.contains(event.relatedTarget as Node | null) ?? false)}
    >
      {ready && notices.map((notice) => <NoticeItem key={notice.id} notice={notice} paused={hovered || focused} onDismiss={onDismiss} />)}
    </div>
  );
}
