import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

/**
 * After a client-side navigation, focus goes to the new page's heading so screen readers announce it.
 * The new page starts at its top, as after a full load: the notices strip under the top bar
 * (lib/notices.tsx) is then in view, not scrolled away with the page left behind. Except within a page's
 * own tab list: there focus stays on the tab followed.
 */
export function useFocusOnNavigate() {
  const location = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (location.hash) return;
    // A sub-page's tab list (`data-keep-focus`, the agent page's): the link just followed keeps focus, and the
    // page keeps its scroll, so the next tab is one Tab key away.
    const active = document.activeElement;
    if (active?.isConnected && active.closest('[data-keep-focus]')) return;
    const heading = document.querySelector<HTMLElement>('main h1');
    window.scrollTo(0, 0);
    (heading ?? document.getElementById('main'))?.focus({ preventScroll: true });
  }, [location.pathname, location.hash]);
}
