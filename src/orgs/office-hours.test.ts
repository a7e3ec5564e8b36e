import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { checkedOfficeHours, describeOpening, isOpen, isTimeZone, nextOpening, type OfficeHours } from './office-hours.js';

/** Office hours in an IANA zone (hand-off, issue 35): open or not at an instant, and the next opening, across a DST change. */
describe('office hours', () => {
  const helsinki: OfficeHours = { timezone: 'Europe/Helsinki', days: ['mon', 'tue', 'wed', 'thu', 'fri'], open: '09:00', close: '17:00' };

  it('knows IANA zones through Intl', () => {
    expect(isTimeZone('Europe/Helsinki')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('checks what an operator sets, naming the field, and keeps the days in week order', () => {
    expect(checkedOfficeHours({ ...helsinki, days: ['fri', 'mon'] }).days).toEqual(['mon', 'fri']);
    const refused = (hours: OfficeHours) => {
      try {
        checkedOfficeHours(hours);
      } catch (error) {
        return (error as AppError).field;
      }
      return undefined;
    };
    expect(refused({ ...helsinki, timezone: 'Nowhere/Land' })).toBe('handoff.officeHours.timezone');
    expect(refused({ ...helsinki, open: '24:00' })).toBe('handoff.officeHours.open');
    expect(refused({ ...helsinki, open: '17:00', close: '17:00' })).toBe('handoff.officeHours.close');
    expect(refused({ ...helsinki, days: ['mon', 'mon'] })).toBe('handoff.officeHours.days');
  });

  it('is open within the local hours on the open days only', () => {
    // Helsinki is UTC+2 in winter: Monday 2026-12-07 09:00 local is 07:00 UTC.
    expect(isOpen(helsinki, new Date('2026-12-07T06:59:00Z'))).toBe(false);
    expect(isOpen(helsinki, new Date('2026-12-07T07:00:00Z'))).toBe(true);
    expect(isOpen(helsinki, new Date('2026-12-07T14:59:00Z'))).toBe(true);
    expect(isOpen(helsinki, new Date('2026-12-07T15:00:00Z'))).toBe(false);
    // Saturday.
    expect(isOpen(helsinki, new Date('2026-12-12T10:00:00Z'))).toBe(false);
    expect(isOpen(null, new Date())).toBe(true);
  });

  it('says when it next opens, in its own zone, across a change of summer time', () => {
    // Friday 2026-12-11 18:00 local → Monday 09:00 local (07:00 UTC).
    const friday = nextOpening(helsinki, new Date('2026-12-11T16:00:00Z'))!;
    expect(friday.toISOString()).toBe('2026-12-14T07:00:00.000Z');
    expect(describeOpening(helsinki, friday)).toBe('Monday at 09:00 (Europe/Helsinki)');
    // Summer time starts on Sunday 2027-03-28: Monday opens at 09:00 EEST, 06:00 UTC.
    expect(nextOpening(helsinki, new Date('2027-03-26T16:00:00Z'))!.toISOString()).toBe('2027-03-29T06:00:00.000Z');
    // Before the day's opening: today.
    expect(nextOpening(helsinki, new Date('2026-12-08T05:00:00Z'))!.toISOString()).toBe('2026-12-08T07:00:00.000Z');
    expect(nextOpening(null, new Date())).toBeNull();
  });
});
