import { describe, expect, it } from 'vitest';
import { splitErrors } from '../../lib/errors';
import { ApiError } from '../../api/client';
import { DEFAULT_HANDOFF, HANDOFF_FIELDS, daysText, fromHandoff, handoffProblems, handoffSummary, timeZoneChoices, toHandoffBody, type HandoffDraft } from './handoff';

const draft = (change: Partial<HandoffDraft> = {}): HandoffDraft => ({ ...fromHandoff(DEFAULT_HANDOFF, 'Europe/Helsinki'), ...change });
const clean = (problems: Record<string, string | null>) => Object.fromEntries(Object.entries(problems).filter(([, message]) => message));

describe('the agent’s hand-off settings, as the console edits them', () => {
  it('starts from the defaults: off, 5 minutes, always open; office hours offered as Mon–Fri 09:00–17:00 in the browser’s zone', () => {
    const start = draft();
    expect(start).toEqual({ enabled: false, waitMinutes: '5', limited: false, timezone: 'Europe/Helsinki', days: ['mon', 'tue', 'wed', 'thu', 'fri'], open: '09:00', close: '17:00' });
    expect(toHandoffBody(start)).toEqual(DEFAULT_HANDOFF);
    expect(clean(handoffProblems(start))).toEqual({});
  });

  it('sends the wait in seconds and office hours with the days in week order; always open is null', () => {
    const body = toHandoffBody(draft({ enabled: true, waitMinutes: '0.5', limited: true, timezone: 'America/New_York', days: ['sat', 'mon'], open: '08:30', close: '12:00' }));
    expect(body).toEqual({ enabled: true, waitSeconds: 30, officeHours: { timezone: 'America/New_York', days: ['mon', 'sat'], open: '08:30', close: '12:00' } });
    // Office hours turned off again: null, whatever was typed in them.
    expect(toHandoffBody(draft({ limited: false, days: [] })).officeHours).toBeNull();
    // Read back as it was saved.
    expect(toHandoffBody(fromHandoff(body, 'UTC'))).toEqual(body);
  });

  it('refuses a wait outside 30 s–60 min, and office hours without a zone, a day, or with closing before opening', () => {
    for (const waitMinutes of ['', 'abc', '0.4', '61', '-1']) expect(clean(handoffProblems(draft({ waitMinutes }))), waitMinutes).toEqual({ 'handoff.waitSeconds': 'Enter from 0.5 to 60 minutes, like 5.' });
    for (const waitMinutes of ['0.5', '1', '60', ' 12 ']) expect(clean(handoffProblems(draft({ waitMinutes }))), waitMinutes).toEqual({});
    expect(clean(handoffProblems(draft({ limited: true, timezone: 'Mars/Olympus_Mons', days: [], open: '9', close: '17:00' })))).toEqual({
      'handoff.officeHours.timezone': 'Choose a time zone.',
      'handoff.officeHours.days': 'Choose at least one day.',
      'handoff.officeHours.open': 'Enter the time you open, like 09:00.',
    });
    expect(clean(handoffProblems(draft({ limited: true, open: '17:00', close: '09:00' })))).toEqual({ 'handoff.officeHours.close': 'Close after you open, on the same day, like 09:00 to 17:00.' });
    expect(clean(handoffProblems(draft({ limited: true, open: '09:00', close: '09:00' })))).toEqual({ 'handoff.officeHours.close': 'Close after you open, on the same day, like 09:00 to 17:00.' });
    // Not checked while always open.
    expect(clean(handoffProblems(draft({ limited: false, timezone: '', days: [], open: '', close: '' })))).toEqual({});
  });

  it('places the API’s refusal on the input its path names', () => {
    const refusal = new ApiError({ status: 400, code: 'VALIDATION_FAILED', message: 'Invalid body', details: [{ path: '/handoff/officeHours/days/1', message: 'Use mon … sun.' }] });
    expect(splitErrors(refusal, HANDOFF_FIELDS).fields).toEqual({ 'handoff.officeHours.days': 'Use mon … sun.' });
    const zone = new ApiError({ status: 400, code: 'VALIDATION_FAILED', message: 'Unknown time zone.', field: 'handoff.officeHours.timezone' });
    expect(splitErrors(zone, HANDOFF_FIELDS).fields).toEqual({ 'handoff.officeHours.timezone': 'Unknown time zone.' });
  });

  it('offers every zone the browser knows, UTC, and the saved one even when the list lacks it', () => {
    const zones = timeZoneChoices('Europe/Helsinki');
    expect(zones).toContain('Europe/Helsinki');
    expect(zones).toContain('UTC');
    expect(timeZoneChoices('Etc/GMT+5')[0]).toBe(zones.includes('Etc/GMT+5') ? 'UTC' : 'Etc/GMT+5');
  });

  it('says what the saved settings do', () => {
    expect(daysText(['mon', 'tue', 'wed', 'thu', 'fri'])).toBe('Mon–Fri');
    expect(daysText(['sun', 'mon', 'wed', 'fri', 'sat'])).toBe('Mon, Wed, Fri–Sun');
    expect(daysText(['sat', 'sun', 'tue'])).toBe('Tue, Sat, Sun');
    expect(daysText(['mon', 'tue', 'thu', 'fri', 'sat'])).toBe('Mon, Tue, Thu–Sat');
    expect(daysText(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'])).toBe('Every day');
    expect(handoffSummary(DEFAULT_HANDOFF)).toBe('Visitors talk to the agent only.');
    expect(handoffSummary({ enabled: true, waitSeconds: 90, officeHours: null })).toBe(
      'Visitors can ask for a person at any time. If nobody takes the chat within 1 minute 30 seconds, the agent takes it back.',
    );
    expect(handoffSummary({ enabled: true, waitSeconds: 300, officeHours: { timezone: 'Europe/Helsinki', days: ['mon', 'tue', 'wed', 'thu', 'fri'], open: '09:00', close: '17:00' } })).toBe(
      'Visitors can ask for a person Mon–Fri, 09:00–17:00 (Europe/Helsinki). If nobody takes the chat within 5 minutes, the agent takes it back.',
    );
  });
});
