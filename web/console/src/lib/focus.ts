import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

/** After a client-side navigation, focus goes to the new page's heading so screen readers announce it. */
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
    (heading ?? document.getElementById('main'))?.focus({ preventScroll: false });
  }, [location.pathname, location.hash]);
}
