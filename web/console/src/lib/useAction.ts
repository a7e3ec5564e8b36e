import { useCallback, useRef, useState } from 'react';

export interface Action<T> {
  /** Runs it (once at a time: a call while it runs is ignored); `onError` after a refusal, as useMutation's. */
  run(options?: { onError?: (error: unknown) => void }): void;
  isPending: boolean;
  isSuccess: boolean;
  error: unknown;
  data: T | undefined;
}

/**
 * A form's one request and its state (pending, refused, done), for the signed-out pages, which load no TanStack
 * Query (lib/query-root.tsx): what they used of useMutation. `onSuccess` runs before the state says done, as
 * useMutation's does, so a navigation it starts comes first.
 */
export function useAction<T>(request: () => Promise<T>, onSuccess?: (data: T) => void): Action<T> {
  const [state, setState] = useState<{ isPending: boolean; isSuccess: boolean; error: unknown; data: T | undefined }>({
    isPending: false,
    isSuccess: false,
    error: null,
    data: undefined,
  });
  const running = useRef(false);
  const latest = useRef({ request, onSuccess });
  latest.current = { request, onSuccess };
  const run = useCallback((options?: { onError?: (error: unknown) => void }) => {
    if (running.current) return;
    running.current = true;
    setState({ isPending: true, isSuccess: false, error: null, data: undefined });
    latest.current.request().then(
      (data) => {
        running.current = false;
        latest.current.onSuccess?.(data);
        setState({ isPending: false, isSuccess: true, error: null, data });
      },
      (error: unknown) => {
        running.current = false;
        setState({ isPending: false, isSuccess: false, error, data: undefined });
        options?.onError?.(error);
      },
    );
  }, []);
  return { ...state, run };
}
