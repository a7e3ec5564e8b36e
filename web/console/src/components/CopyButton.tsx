import { useState } from 'react';
import { copyText } from '../lib/clipboard';

/** Copies `text`; says so in the button's label (read out: the button keeps focus and its name changes). */
export function CopyButton({ text, label = 'Copy', className = 'button small' }: { text: string; label?: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <button
      type="button"
      className={className}
      onClick={async () => {
        setState((await copyText(text)) ? 'copied' : 'failed');
        setTimeout(() => setState('idle'), 2500);
      }}
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy it by hand' : label}</span>
    </button>
  );
}
