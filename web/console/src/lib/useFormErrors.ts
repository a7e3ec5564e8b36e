import { useEffect, useRef, useState } from 'react';
import { firstErrors, focusFirstInvalid, splitErrors, type Checks } from './errors';

/**
 * Errors of one form: the page's own checks before sending, then the API's refusal placed on its
 * input (or shown for the whole form). `check()` returns true when the form may be sent.
 */
export function useFormErrors(fields: readonly string[], apiError: unknown) {
  const [local, setLocal] = useState<Record<string, string>>({});
  const api = splitErrors(apiError, fields);
  // The form whose first invalid input takes the focus once React has drawn the errors. Checked after
  // every commit, not after a fixed frame: on a busy machine the errors could be drawn a frame later,
  // and the focus then stayed on the button (seen in a browser test under load).
  const focusPending = useRef<HTMLFormElement | null>(null);
  const focusWhenDrawn = (form: HTMLFormElement | null) => {
    focusPending.current = form;
    // The errors may already be drawn (no render follows then): try once the current work is done.
    requestAnimationFrame(() => {
      if (focusPending.current === form && focusFirstInvalid(form)) focusPending.current = null;
    });
  };
  useEffect(() => {
    if (focusPending.current && focusFirstInvalid(focusPending.current)) focusPending.current = null;
  });
  return {
    error: (name: string): string | undefined => local[name] ?? (Object.keys(local).length ? undefined : api.fields[name]),
    general: Object.keys(local).length ? null : api.general,
    check(form: HTMLFormElement | null, checks: Checks): boolean {
      const found = firstErrors(checks);
      setLocal(found);
      if (Object.keys(found).length) {
        focusWhenDrawn(form);
        return false;
      }
      return true;
    },
    /** After the API refused: focus the input it names. */
    focusApiError(form: HTMLFormElement | null) {
      focusWhenDrawn(form);
    },
  };
}
