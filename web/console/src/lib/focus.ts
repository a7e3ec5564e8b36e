import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

/**
 * After a client-side navigation, focus goes to the new page's heading so screen readers announce it.
 * The new page starts at its top, as after a full load: the notices strip under the top bar
 * (lib/notices.tsx) is then in view, not scrolled away with the page left behind.
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
    const heading = document.querySelector<HTMLElement>('main h1');
    window.scrollTo(0, 0);
    (heading ?? document.getElementById('main'))?.focus({ preventScroll: true });
  }, [location.pathname, location.hash]);
}
