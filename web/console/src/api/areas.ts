import type { Session } from './types';

/**
 * The console's areas and where a person lands in them: what the signed-in shell and sign-up use, kept out of
 * api/session-state.ts so the first page (sign-in) does not carry it (docs/benchmarks.md, issue 37).
 */

/** The console's two areas: the operator pages of an organization, and the developer portal. */
export type Area = 'business' | 'developer';

/** The area a person who is both last worked in, kept in this browser so sign-in lands there again. */
const LAST_AREA = 'switchboard.area';

export function rememberArea(area: Area): void {
  try {
    localStorage.setItem(LAST_AREA, area);
  } catch {
    // Storage refused: a person who is both lands on the operator pages, one click from the other area.
  }
}

function lastArea(): Area | null {
  try {
    const stored = localStorage.getItem(LAST_AREA);
    return stored === 'business' || stored === 'developer' ? stored : null;
  } catch {
    return null;
  }
}

/** The areas this person has: the operator pages with an organization, the portal with a developer account (or with neither, to become a developer). */
export function areasOf(session: Session): Area[] {
  const areas: Area[] = [];
  if (session.organization) areas.push('business');
  if (session.developer || !session.organization) areas.push('developer');
  return areas;
}

/** Which area a path belongs to; null for the pages both share (Settings, not found). */
export function areaOfPath(pathname: string): Area | null {
  if (pathname === '/developer' || pathname.startsWith('/developer/')) return 'developer';
  if (pathname === '/settings' || pathname === '/') return null;
  return 'business';
}

/** The area shown now: the page's own, else the one last chosen, else the first this person has. */
export function currentArea(session: Session, pathname: string): Area {
  const areas = areasOf(session);
  const wanted = areaOfPath(pathname) ?? lastArea();
  return wanted && areas.includes(wanted) ? wanted : areas[0]!;
}

export const AREA_HOME: Record<Area, string> = { business: '/forms', developer: '/developer' };

/** Where a person lands after signing in: the area they last worked in (operator pages first), or the only one they have. */
export function homeOf(session: Session): string {
  return AREA_HOME[currentArea(session, '/')];
}
