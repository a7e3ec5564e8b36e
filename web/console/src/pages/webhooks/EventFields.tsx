import { useId } from 'react';
import type { WebhookEventType } from '../../api/types';
import { CheckboxField } from '../../components/fields';
import { EVENTS, orderedEvents } from './api';

/** The events to send, as checkboxes with a line each on when they happen. */
export function EventFields({ value, onChange, error }: { value: WebhookEventType[]; onChange: (events: WebhookEventType[]) => void; error?: string | undefined }) {
  const errorId = useId();
  return (
    <fieldset aria-describedby={error ? errorId : undefined} aria-invalid={error ? true : undefined}>
      <legend>Events to send</legend>
      {EVENTS.map(({ type, hint }) => (
        <CheckboxField
          key={type}
          label={<code>{type}</code>}
          hint={hint}
          name="events"
          checked={value.includes(type)}
          onChange={(e) => onChange(orderedEvents(e.target.checked ? [...value, type] : value.filter((t) => t !== type)))}
        />
      ))}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
