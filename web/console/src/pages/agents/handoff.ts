import type { AgentHandoff, Weekday } from '../../api/types';

/**
 * The agent page's Hand-off section (on Chat widget and hand-off): the draft, its checks and the body it
 * sends (`handoff` of PATCH /api/org/agents/{id}, a partial like `chat`; issue 35). The wait is edited in
 * minutes and sent in seconds.
 */

export const WAIT_MIN_SECONDS = 30;
export const WAIT_MAX_SECONDS = 3600;
export const DEFAULT_HANDOFF: AgentHandoff = { enabled: false, waitSeconds: 300, officeHours: null };

export const WEEKDAYS: readonly { day: Weekday; short: string; long: string }[] = [
  { day: 'mon', short: 'Mon', long: 'Monday' },
  { day: 'tue', short: 'Tue', long: 'Tuesday' },
  { day: 'wed', short: 'Wed', long: 'Wednesday' },
  { day: 'thu', short: 'Thu', long: 'Thursday' },
  { day: 'fri', short: 'Fri', long: 'Friday' },
  { day: 'sat', short: 'Sat', long: 'Saturday' },
  { day: 'sun', short: 'Sun', long: 'Sunday' },
];

export interface HandoffDraft {
  enabled: boolean;
  /** Minutes as typed ("5", "0.5"). */
  waitMinutes: string;
  /** Only during office hours; off: always open (the hours below are kept while the page is open). */
  limited: boolean;
  timezone: string;
  days: Weekday[];
  open: string;
  close: string;
}

/** The browser's own time zone, the first choice for new office hours. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function fromHandoff(handoff: AgentHandoff, defaultZone: string): HandoffDraft {
  const hours = handoff.officeHours;
  return {
    enabled: handoff.enabled,
    waitMinutes: String(handoff.waitSeconds / 60),
    limited: hours !== null,
    timezone: hours?.timezone ?? defaultZone,
    days: hours ? [...hours.days] : ['mon', 'tue', 'wed', 'thu', 'fri'],
    open: hours?.open ?? '09:00',
    close: hours?.close ?? '17:00',
  };
}

const waitSeconds = (minutes: string) => (minutes.trim() === '' ? NaN : Math.round(Number(minutes) * 60));

export function toHandoffBody(draft: HandoffDraft): AgentHandoff {
  return {
    enabled: draft.enabled,
    waitSeconds: waitSeconds(draft.waitMinutes),
    officeHours: draft.limited
      ? { timezone: draft.timezone, days: WEEKDAYS.map((each) => each.day).filter((day) => draft.days.includes(day)), open: draft.open, close: draft.close }
      : null,
  };
}

const TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

/** A time zone Intl knows (the server checks it the same way). */
export function knownTimeZone(zone: string): boolean {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Every time zone to choose from: the browser's list, with `keep` (the one saved) when the list lacks it. */
export function timeZoneChoices(keep: string): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    // An older browser: the saved zone and UTC.
  }
  const out = zones.includes('UTC') ? [...zones] : ['UTC', ...zones];
  return keep && !out.includes(keep) ? [keep, ...out] : out;
}

export const HANDOFF_FIELDS = [
  'handoff.enabled',
  'handoff.waitSeconds',
  'handoff.officeHours.timezone',
  'handoff.officeHours.days',
  'handoff.officeHours.open',
  'handoff.officeHours.close',
  'handoff.officeHours',
  'handoff',
];

/** The section's own checks before sending, by the API's field names. */
export function handoffProblems(draft: HandoffDraft) {
  const seconds = waitSeconds(draft.waitMinutes);
  const limited = draft.limited;
  return {
    'handoff.waitSeconds':
      Number.isFinite(seconds) && seconds >= WAIT_MIN_SECONDS && seconds <= WAIT_MAX_SECONDS ? null : 'Enter from 0.5 to 60 minutes, like 5.',
    'handoff.officeHours.timezone': limited && !knownTimeZone(draft.timezone) ? 'Choose a time zone.' : null,
    'handoff.officeHours.days': limited && draft.days.length === 0 ? 'Choose at least one day.' : null,
    'handoff.officeHours.open': limited && !TIME.test(draft.open) ? 'Enter the time you open, like 09:00.' : null,
    'handoff.officeHours.close': !limited
      ? null
      : !TIME.test(draft.close)
        ? 'Enter the time you close, like 17:00.'
        : TIME.test(draft.open) && draft.close <= draft.open
          ? 'Close after you open, on the same day, like 09:00 to 17:00.'
          : null,
  };
}

/** "Mon–Fri", "Mon, Wed, Fri", "Every day": the days in week order, runs of three or more as a range. */
export function daysText(days: readonly Weekday[]): string {
  const order = WEEKDAYS.map((each) => each.day);
  const on = order.map((day) => days.includes(day));
  if (on.every(Boolean)) return 'Every day';
  const parts: string[] = [];
  for (let i = 0; i < 7; i++) {
    if (!on[i]) continue;
    let j = i;
    while (j + 1 < 7 && on[j + 1]) j++;
    const first = WEEKDAYS[i]!.short;
    const last = WEEKDAYS[j]!.short;
    if (j - i >= 2) parts.push(`${first}–${last}`);
    else for (let k = i; k <= j; k++) parts.push(WEEKDAYS[k]!.short);
    i = j;
  }
  return parts.join(', ');
}

/** "5 minutes", "30 seconds", "1 minute 30 seconds". */
export function waitText(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const m = minutes ? `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}` : '';
  const s = rest ? `${rest} ${rest === 1 ? 'second' : 'seconds'}` : '';
  return [m, s].filter(Boolean).join(' ') || '0 seconds';
}

/** What the saved settings do, for the section's status line (after its On / Off badge). */
export function handoffSummary(handoff: AgentHandoff): string {
  if (!handoff.enabled) return 'Visitors talk to the agent only.';
  const hours = handoff.officeHours;
  const when = hours ? `${daysText(hours.days)}, ${hours.open}–${hours.close} (${hours.timezone})` : 'at any time';
  return `Visitors can ask for a person ${when}. If nobody takes the chat within ${waitText(handoff.waitSeconds)}, the agent takes it back.`;
}
