/**
 * Focus for what replaced the focused control (a closed editor or dialog, a deleted row): once React
 * has drawn the new state, focus the first element found; nothing happens if none is there. A second
 * try a little later wins over a dialog's own focus restore when that lands on the page itself.
 */
export function focusSoon(...selectors: string[]): void {
  const attempt = (onlyIfAdrift: boolean) => {
    const active = document.activeElement;
    if (onlyIfAdrift && active && active !== document.body && active.id !== 'main') return;
    for (const selector of selectors) {
      const element = document.querySelector<HTMLElement>(selector);
      if (element) {
        if (element !== active) element.focus();
        return;
      }
    }
  };
  setTimeout(() => attempt(false), 30);
  setTimeout(() => attempt(true), 200);
}
