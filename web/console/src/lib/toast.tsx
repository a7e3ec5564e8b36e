import { useSyncExternalStore } from 'react';

/**
 * A small toast queue: short confirmations read out by screen readers through one polite live region
 * (errors stay beside what failed, not in toasts). Each toast closes itself after a while or by its button.
 */
export interface Toast {
  id: number;
  text: string;
}

let toasts: Toast[] = [];
let next = 0;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

export function dismiss(id: number): void {
  toasts = toasts.filter((toast) => toast.id !== id);
  emit();
}

export function toast(text: string, timeout = 6000): void {
  const id = ++next;
  toasts = [...toasts.slice(-2), { id, text }];
  emit();
  setTimeout(() => dismiss(id), timeout);
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function ToastRegion() {
  const list = useSyncExternalStore(subscribe, () => toasts);
  return (
    <div className="toasts" role="status" aria-live="polite" aria-label="Notifications">
      {list.map((item) => (
        <div key={item.id} className="toast">
          <span>{item.text}</span>
          <button type="button" className="toast-close" aria-label="Dismiss notification" onClick={() => dismiss(item.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
