import { useEffect, type ReactNode } from 'react';

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Switchboard` : 'Switchboard';
  }, [title]);
}

/**
 * A page's heading and title (the heading's text, or `documentTitle` when a page has sub-pages); the heading
 * takes focus after a client-side navigation (Layout).
 */
export function Page({
  title,
  documentTitle,
  actions,
  intro,
  children,
}: {
  title: string;
  documentTitle?: string;
  actions?: ReactNode;
  intro?: ReactNode;
  children?: ReactNode;
}) {
  usePageTitle(documentTitle ?? title);
  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {intro ? <p className="intro">{intro}</p> : null}
      {children}
    </>
  );
}
