import { Outlet } from 'react-router';
import { useFocusOnNavigate } from '../lib/focus';
import { NoticeRegion } from '../lib/notices';

/** The signed-out pages (sign-in, sign-up, reset, invitation): one centered column. */
export function AuthLayout() {
  useFocusOnNavigate();
  return (
    <div className="auth-shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="auth-brand">
        <span className="brand">Switchboard</span>
      </header>
      <NoticeRegion />
      <main id="main" tabIndex={-1} className="auth-main">
        <Outlet />
      </main>
    </div>
  );
}
