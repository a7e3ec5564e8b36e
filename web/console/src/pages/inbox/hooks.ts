import { useEffect, useState } from 'react';

/** The time now, in milliseconds, renewed every `everyMs`: the Inbox's waits count up while the page is open. */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * A polite live region's text, said once each time `say` is called (cleared first, so the same words said
 * twice are said twice): `[text, say]`.
 */
export function useAnnouncer(): [string, (text: string) => void] {
  const [text, setText] = useState('');
  const [next, setNext] = useState<{ text: string } | null>(null);
  useEffect(() => {
    if (!next) return;
    setText('');
    const timer = setTimeout(() => setText(next.text), 50);
    return () => clearTimeout(timer);
  }, [next]);
  return [text, (words: string) => setNext({ text: words })];
}
