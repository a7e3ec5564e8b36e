import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';

/** Filters are plain strings by name; empty means "not filtered on". */
type Filters<T> = { [K in keyof T]: string };

/** The filters the address names: every key of `empty`, missing ones empty. */
export function filtersFrom<T extends Filters<T>>(params: URLSearchParams, empty: T): T {
  const filters = { ...empty };
  for (const key of Object.keys(empty) as (keyof T & string)[]) filters[key] = (params.get(key) ?? '') as T[typeof key];
  return filters;
}

/** The address for a draft: trimmed values, empty ones left out so a cleared filter leaves no `?q=`. */
export function paramsFrom<T extends Filters<T>>(draft: T): URLSearchParams {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries<string>(draft)) if (value.trim()) search.set(key, value.trim());
  return search;
}

/**
 * Filters kept in the address, as list pages use them: the applied `filters` come from the address, the
 * inputs edit a `draft` that Search applies, and back/forward (a new address) puts the inputs in step
 * again. One hook so every filtered list behaves alike; `clear` leaves focus to the page, which knows
 * which input comes first.
 */
export function useAddressFilters<T extends Filters<T>>(empty: T) {
  const [params, setParams] = useSearchParams();
  const filters = filtersFrom(params, empty);
  const [draft, setDraft] = useState<T>(filters);
  // Back and forward change the address: the inputs follow it.
  const [seen, setSeen] = useState(params.toString());
  if (seen !== params.toString()) {
    setSeen(params.toString());
    setDraft(filters);
  }
  const filtered = Object.values<string>(filters).some(Boolean);

  const apply = (next: T) => setParams(paramsFrom(next));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    apply(draft);
  };
  const clear = () => {
    setDraft(empty);
    apply(empty);
  };
  return { filters, draft, setDraft, filtered, onSubmit, clear };
}
