import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Header, Menu, MenuItem, MenuSection, MenuTrigger, Popover } from 'react-aria-components';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client';
import { AREA_HOME, areaOfPath, areasOf, currentArea, rememberArea, useCurrentSession, useSessionActions, type Area } from '../api/session';
import { useFocusOnNavigate } from '../lib/focus';
import { NoticeRegion, useNotify } from '../lib/notices';
import { InboxCount, InboxLiveProvider } from '../pages/inbox/live';
import '../pages/inbox/inbox.css';

interface NavItem {
  to: string;
  label: string;
  ownerOnly?: boolean;
  /** A page outside the console (served by the server itself, not the router). */
  external?: boolean;
  /** Current only on this exact path (Overview, not on the pages under it). */
  end?: boolean;
  /** The Inbox: the count of conversations waiting for a person after its label. */
  inbox?: boolean;
}

/** The operator pages, for a person with an organization. */
const NAV: NavItem[] = [
  { to: '/forms', label: 'Forms' },
  { to: '/contacts', label: 'Contacts' },
  { to: '/pipelines', label: 'Pipelines' },
  { to: '/custom-fields', label: 'Custom fields' },
  { to: '/agents', label: 'Agents' },
  { to: '/tools', label: 'Tools' },
  { to: '/inbox', label: 'Inbox', inbox: true },
  { to: '/conversations', label: 'Conversations' },
  { to: '/api-keys', label: 'API keys', ownerOnly: true },
  { to: '/members', label: 'Members', ownerOnly: true },
  { to: '/webhooks', label: 'Webhooks', ownerOnly: true },
  { to: '/audit-log', label: 'Audit log', ownerOnly: true },
  { to: '/settings', label: 'Settings' },
];

/** The developer portal's pages, for a person with a developer account (or to become one). */
const DEVELOPER_NAV: NavItem[] = [
  { to: '/developer', label: 'Overview', end: true },
  { to: '/developer/apps', label: 'Apps' },
  { to: '/developer/tools', label: 'Tools' },
  { to: '/developer/audit-log', label: 'Audit log' },
  { to: '/catalog', label: 'Public catalog', external: true },
];

const AREA_LABELS: Record<Area, string> = { business: 'Business', developer: 'Developer' };

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
  // A person sees the pages of one area at a time: the operator pages of their organization, or the
  // developer portal. A person who is both switches between them (the Business / Developer links);
  // the last one chosen is remembered in this browser, so Settings and the next sign-in keep to it.
  const areas = areasOf(session);
  const area = currentArea(session, location.pathname);
  const areaKey = areas.join(' ');
  useEffect(() => {
    const shown = areaOfPath(location.pathname);
    if (shown && areaKey.split(' ').includes(shown)) rememberArea(shown);
  }, [location.pathname, areaKey]);
  const nav: NavItem[] = [
    ...(area === 'business' ? NAV.filter((item) => (!item.ownerOnly || isOwner) && item.to !== '/settings') : DEVELOPER_NAV),
    { to: '/settings', label: 'Settings' },
  ];
  const context = area === 'business' ? (session.organization?.name ?? '') : (session.developer?.name ?? '');
  // A member of an organization, on its pages: the Inbox's live stream keeps its count and pages current.
  return (
    <InboxLiveProvider me={session.user.id} enabled={area === 'business' && Boolean(session.organization)}>
      <div className="shell">
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="topbar">
          <NavLink to={AREA_HOME[area]} className="brand">
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
                  if (key === 'become-developer') navigate('/developer');
                }}
              >
                <MenuSection>
                  <Header className="menu-label">
                    Signed in as {session.user.email}{context ? ` · ${context}` : ''}
                  </Header>
                  <MenuItem id="settings" className="menu-item">
                    Settings
                  </MenuItem>
                  {session.developer ? null : (
                    <MenuItem id="become-developer" className="menu-item">
                      Become a developer
                    </MenuItem>
                  )}
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
          <div id="primary-nav" className={menuOpen ? 'sidenav open' : 'sidenav'}>
            {areas.length > 1 ? (
              <nav aria-label="Switch area" className="area-switch">
                {areas.map((each) => (
                  <Link key={each} to={AREA_HOME[each]} aria-current={each === area ? 'true' : undefined} onClick={() => rememberArea(each)}>
                    {AREA_LABELS[each]}
                  </Link>
                ))}
              </nav>
            ) : null}
            <nav aria-label="Main">
              <ul>
                {nav.map((item) => (
                  <li key={item.to}>
                    {item.external ? (
                      <a href={item.to}>{item.label}</a>
                    ) : (
                      <NavLink to={item.to} end={item.end}>
                        {item.label}
                        {item.inbox ? <InboxCount /> : null}
                      </NavLink>
                    )}
                  </li>
                ))}
              </ul>
            </nav>
          </div>
          <main id="main" tabIndex={-1}>
            <Outlet />
          </main>
        </div>
      </div>
    </InboxLiveProvider>
  );
}
