import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Header, Menu, MenuItem, MenuSection, MenuTrigger, Popover } from 'react-aria-components';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client';
import { homeOf, useCurrentSession, useSessionActions } from '../api/session';
import { useFocusOnNavigate } from '../lib/focus';
import { NoticeRegion, useNotify } from '../lib/notices';

interface NavItem {
  to: string;
  label: string;
  ownerOnly?: boolean;
}

/** The operator pages, for a person with an organization. */
const NAV: NavItem[] = [
  { to: '/forms', label: 'Forms' },
  { to: '/contacts', label: 'Contacts' },
  { to: '/pipelines', label: 'Pipelines' },
  { to: '/custom-fields', label: 'Custom fields' },
  { to: '/agents', label: 'Agents' },
  { to: '/tools', label: 'Tools' },
  { to: '/api-keys', label: 'API keys', ownerOnly: true },
  { to: '/members', label: 'Members', ownerOnly: true },
  { to: '/settings', label: 'Settings' },
];

export function Layout() {
  const notify = useNotify();
  const session = useCurrentSession();
  const { signOut: forget } = useSessionActions();
  const navigate = useNavigate();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useFocusOnNavigate();
  useEffect(() => setMenuOpen(false), [location.pathname]);

  const signOut = useMutation({
    mutationFn: () => api.post<{ signedOut: true }>('/api/auth/signout'),
    onSuccess: () => {
      forget();
      navigate('/signin', { replace: true });
      notify('You are signed out.');
    },
    onError: (error) => notify(error.message),
  });

  const isOwner = session.user.role === 'owner';
  // A person sees the pages of what they do: the operator pages with an organization, Developer with a
  // developer account (both: both, and they switch by the menu). Without an organization, Settings only.
  const nav: NavItem[] = [
    ...(session.organization ? NAV.filter((item) => (!item.ownerOnly || isOwner) && item.to !== '/settings') : []),
    ...(session.developer || !session.organization ? [{ to: '/developer', label: 'Developer' }] : []),
    { to: '/settings', label: 'Settings' },
  ];
  const context = session.organization?.name ?? session.developer?.name ?? '';
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to={homeOf(session)} className="brand">
          Switchboard
        </NavLink>
        <span className="org-name">{context}</span>
        <button
          type="button"
          className="button nav-toggle"
          aria-expanded={menuOpen}
          aria-controls="primary-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <MenuTrigger>
          <Button className="button user-button" aria-label={`Account: ${session.user.name || session.user.email}`}>
            <span className="user-name">{session.user.name || session.user.email}</span>
            <span aria-hidden="true"> ▾</span>
          </Button>
          <Popover placement="bottom end" className="popover">
            <Menu
              className="menu"
              onAction={(key) => {
                if (key === 'signout') signOut.mutate();
                if (key === 'settings') navigate('/settings');
              }}
            >
              <MenuSection>
                <Header className="menu-label">
                  Signed in as {session.user.email}{context ? ` · ${context}` : ''}
                </Header>
                <MenuItem id="settings" className="menu-item">
                  Settings
                </MenuItem>
                <MenuItem id="signout" className="menu-item">
                  Sign out
                </MenuItem>
              </MenuSection>
            </Menu>
          </Popover>
        </MenuTrigger>
      </header>
      <NoticeRegion />
      <div className="body">
        <nav id="primary-nav" aria-label="Main" className={menuOpen ? 'sidenav open' : 'sidenav'}>
          <ul>
            {nav.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to}>{item.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}
