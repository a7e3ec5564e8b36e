import { useState } from 'react';
import { firstErrors, focusFirstInvalid, splitErrors, type Checks } from './errors';

/**
 * Errors of one form: the page's own checks before sending, then the API's refusal placed on its
 * input (or shown for the whole form). `check()` returns true when the form may be sent.
 */
export function useFormErrors(fields: readonly string[], apiError: unknown) {
  const [local, setLocal] = useState<Record<string, string>>({});
  const api = splitErrors(apiError, fields);
  return {
    error: (name: string): string | undefined => local[name] ?? (Object.keys(local).length ? undefined : api.fields[name]),
    general: Object.keys(local).length ? null : api.general,
    check(form: HTMLFormElement | null, checks: Checks): boolean {
      const found = firstErrors(checks);
      setLocal(found);
      if (Object.keys(found).length) {
        focusFirstInvalid(form);
        return false;
      }
      return true;
    },
    /** After the API refused: focus the input it names. */
    focusApiError(form: HTMLFormElement | null) {
      focusFirstInvalid(form);
    },
  };
}
