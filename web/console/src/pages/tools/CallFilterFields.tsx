import { SelectField, TextField } from '../../components/fields';
import { fieldError } from '../../lib/errors';
import { OUTCOMES } from './format';

/**
 * Filter fields both call logs share (the operator's Tool calls page and a developer's tool page), so their
 * words and rules are one copy. Each takes the filter draft and its setter; `error` is the API's refusal,
 * shown on its field.
 */
interface FieldProps<T> {
  draft: T;
  setDraft: (next: T) => void;
  error: unknown;
}

/** Outcome: any, or one code by its label. */
export function OutcomeField<T extends { outcome: string }>({ draft, setDraft, error }: FieldProps<T>) {
  return (
    <SelectField label="Outcome" name="outcome" value={draft.outcome} onChange={(e) => setDraft({ ...draft, outcome: e.target.value })} error={fieldError(error, 'outcome')}>
      <option value="">Any outcome</option>
      {Object.entries(OUTCOMES).map(([code, label]) => (
        <option key={code} value={code}>
          {label}
        </option>
      ))}
    </SelectField>
  );
}

/** From and To as days in the browser's calendar, the last one included; each bounds the other. */
export function DayRangeFields<T extends { from: string; to: string }>({ draft, setDraft, error }: FieldProps<T>) {
  return (
    <>
      <TextField label="From" hint="First day" type="date" name="from" value={draft.from} max={draft.to || undefined} onChange={(e) => setDraft({ ...draft, from: e.target.value })} error={fieldError(error, 'from')} />
      <TextField label="To" hint="Last day, included" type="date" name="to" value={draft.to} min={draft.from || undefined} onChange={(e) => setDraft({ ...draft, to: e.target.value })} error={fieldError(error, 'to')} />
    </>
  );
}
