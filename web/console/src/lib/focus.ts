import { useLayoutEffect, useRef } from 'react';
import { useLocation, type createBrowserRouter } from 'react-router';

type Router = ReturnType<typeof createBrowserRouter>;

/**
 * A link followed inside a page's own tab list (`data-keep-focus`, the agent page's): that link keeps focus
 * and the page keeps its scroll, so the next tab is one Tab key away.
 */
function keepsFocus(): boolean {
  const active = document.activeElement;
  return Boolean(active?.isConnected && active.closest('[data-keep-focus]'));
}

/**
 * The new page starts at its top, as after a full load: the notices strip under the top bar
 * (lib/notices.tsx) is then in view, not scrolled away with the page left behind.
 *
 * At the moment the router commits a navigation, not after React draws the new page: the data router
 * writes the address (history.pushState/replaceState) and then hands its state to React inside a
 * transition, which on a slow or loaded device draws a large page (the form editor) a second or more
 * later. A notice given with the navigation ("Form created", then the new form) is drawn at once, into
 * the page still shown; reset only after the new page's commit, it sat above the view, scrolled away,
 * for that whole time, with the address already the new page's (issue 37). Resetting here keeps the
 * address, the scroll and the notice together.
 */
export function startPagesAtTop(router: Router): () => void {
  let shown = router.state.location;
  return router.subscribe((state) => {
    const { location } = state;
    if (location.pathname === shown.pathname && location.hash === shown.hash) return;
    shown = location;
    if (location.hash || keepsFocus()) return;
    window.scrollTo(0, 0);
  });
}

/**
 * After a client-side navigation, focus goes to the new page's heading so screen readers announce it,
 * before the new page is first painted (a layout effect). The page starts at its top (startPagesAtTop,
 * again here for what the new page's first render moved). Except within a page's own tab list: there focus
 * stays on the tab followed.
 */
export function useFocusOnNavigate() {
  const location = useLocation();
  const first = useRef(true);
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (location.hash) return;
    if (keepsFocus()) return;
    const heading = document.querySelector<HTMLElement>('main h1');
    window.scrollTo(0, 0);
    (heading ?? document.getElementById('main'))?.focus({ preventScroll: true });
  }, [location.pathname, location.hash]);
}
