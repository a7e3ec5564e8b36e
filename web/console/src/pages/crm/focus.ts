/**
 * Focus for what replaced the focused control (a closed editor, a deleted row): once React has
 * drawn the new state, focus the first element found; nothing happens if none is there.
 */
export function focusSoon(...selectors: string[]): void {
  setTimeout(() => {
    for (const selector of selectors) {
      const element = document.querySelector<HTMLElement>(selector);
      if (element) {
        element.focus();
        return;
      }
    }
  }, 30);
}
