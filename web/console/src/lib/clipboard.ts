/**
 * Copies text: the Clipboard API, or (where it is missing or refused, e.g. a console served over plain
 * http on another host) a selected off-screen textarea and the copy command. False when both fail.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return legacyCopy(text);
  }
}

function legacyCopy(text: string): boolean {
  const active = document.activeElement as HTMLElement | null;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  // Beside the focused element: inside a modal dialog, focus must stay within it.
  (active?.parentElement ?? document.body).append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  active?.focus();
  return copied;
}
