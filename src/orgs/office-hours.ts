import { AppError } from '../http/errors.js';

/**
 * An agent's office hours (hand-off, issue 35): the days and the local times in an IANA time zone when a person
 * may take a chat over. Pure functions over Intl: whether `now` is within them, and when they next open.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface OfficeHours {
  timezone: string;
  days: Weekday[];
  /** HH:MM, local time in `timezone`; open < close. */
  open: string;
  close: string;
}

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether Intl knows the time zone (an IANA name such as `Europe/Helsinki`, or `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name.trim() === '' || name.length > 100) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const invalid = (field: string, message: string) => new AppError('VALIDATION_ERROR', message, { field: `handoff.officeHours.${field}` });

/** The office hours as given, checked: a 400 VALIDATION_ERROR naming the field otherwise. Days in week order. */
export function checkedOfficeHours(hours: OfficeHours): OfficeHours {
  if (!isTimeZone(hours.timezone)) throw invalid('timezone', 'timezone must be an IANA time zone such as Europe/Helsinki or America/New_York.');
  if (!HH_MM.test(hours.open)) throw invalid('open', 'open must be a time as HH:MM (24-hour), such as 09:00.');
  if (!HH_MM.test(hours.close)) throw invalid('close', 'close must be a time as HH:MM (24-hour), such as 17:00.');
  if (minutesOf(hours.open) >= minutesOf(hours.close)) throw invalid('close', 'close must be later than open on the same day.');
  if (hours.days.length === 0) throw invalid('days', 'days must name at least one day.');
  if (new Set(hours.days).size !== hours.days.length) throw invalid('days', 'days must not name a day twice.');
  return { timezone: hours.timezone, days: WEEKDAYS.filter((day) => hours.days.includes(day)), open: hours.open, close: hours.close };
}

/** Stored as JSON in `agents.handoff_office_hours`; anything unreadable reads as always open. */
export function parseOfficeHours(text: string | null): OfficeHours | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as OfficeHours;
    return value && typeof value.timezone === 'string' && Array.isArray(value.days) ? value : null;
  } catch {
    return null;
  }
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  weekday: Weekday;
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', weekday: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    // A handful of zones in practice; bounded anyway.
    if (formatters.size > 500) formatters.clear();
    formatters.set(timeZone, found);
  }
  return found;
}

function localTime(instant: Date, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) parts[part.type] = part.value;
  return {
    year: Number(parts.year), month: Number(parts.month), day: Number(parts.day),
    weekday: (parts.weekday ?? 'Mon').toLowerCase().slice(0, 3) as Weekday,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** The instant of a local date and time in the zone (DST: the offset at that time, found in two steps). */
function instantOf(year: number, month: number, day: number, minutes: number, timeZone: string): Date {
  const asUtc = Date.UTC(year, month - 1, day, 0, minutes);
  let guess = asUtc;
  for (let i = 0; i < 2; i++) {
    const local = localTime(new Date(guess), timeZone);
    const localAsUtc = Date.UTC(local.year, local.month - 1, local.day, 0, local.minutes);
    guess = asUtc - (localAsUtc - guess);
  }
  return new Date(guess);
}

/** Whether `now` is within the office hours (null hours: always). */
export function isOpen(hours: OfficeHours | null, now: Date): boolean {
  if (hours === null) return true;
  const local = localTime(now, hours.timezone);
  return hours.days.includes(local.weekday) && local.minutes >= minutesOf(hours.open) && local.minutes < minutesOf(hours.close);
}

/** When the office hours next open after `now` (null hours, or no day at all: null). */
export function nextOpening(hours: OfficeHours | null, now: Date): Date | null {
  if (hours === null || hours.days.length === 0) return null;
  for (let ahead = 0; ahead <= 7; ahead++) {
    // Noon of the local day `ahead` days on: a day's weekday and date whatever the DST change.
    const today = localTime(now, hours.timezone);
    const noon = instantOf(today.year, today.month, today.day, 12 * 60, hours.timezone);
    const day = localTime(new Date(noon.getTime() + ahead * 86_400_000), hours.timezone);
    if (!hours.days.includes(day.weekday)) continue;
    const opens = instantOf(day.year, day.month, day.day, minutesOf(hours.open), hours.timezone);
    if (opens.getTime() > now.getTime()) return opens;
  }
  return null;
}

const DAY_NAMES: Record<Weekday, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

/** "Monday at 09:00 (Europe/Helsinki)": when the office next opens, in its own zone, for a visitor. */
export function describeOpening(hours: OfficeHours, opening: Date): string {
  const local = localTime(opening, hours.timezone);
  const hh = String(Math.floor(local.minutes / 60)).padStart(2, '0');
  const mm = String(local.minutes % 60).padStart(2, '0');
  return `${DAY_NAMES[local.weekday]} at ${hh}:${mm} (${hours.timezone})`;
}
