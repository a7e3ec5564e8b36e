import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { api } from './api/client';
import { endSession } from './api/session-state';
import { startPagesAtTop } from './lib/focus';
import { createRouter } from './routes';
import './styles.css';

// React Aria adds a <style> for pressable elements unless one with this id exists; the console's CSP
// (style-src 'self') refuses inline styles, so styles.css carries that rule and this marker stops the injection.
if (!document.getElementById('react-aria-pressable-style')) {
  const marker = document.createElement('meta');
  marker.id = 'react-aria-pressable-style';
  document.head.append(marker);
}

const router = createRouter();
startPagesAtTop(router);

// A 401 from the Operator API: the session ended elsewhere (expired, signed out, password changed).
api.setOnUnauthorized(() => {
  endSession();
  const here = `${location.pathname.replace(/^\/app/, '') || '/'}${location.search}`;
  void router.navigate(`/signin?next=${encodeURIComponent(here)}`, { replace: true });
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
