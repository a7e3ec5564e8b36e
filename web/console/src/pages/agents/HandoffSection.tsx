import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { Agent, AgentHandoff, Weekday } from '../../api/types';
import { CheckboxField, FormError, SelectField, TextField } from '../../components/fields';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import {
  HANDOFF_FIELDS,
  WEEKDAYS,
  browserTimeZone,
  fromHandoff,
  handoffProblems,
  handoffSummary,
  timeZoneChoices,
  toHandoffBody,
  type HandoffDraft,
} from './handoff';
import './chat.css';

/**
 * The agent page's "Hand-off" (on Chat widget and hand-off): whether visitors may ask for a person, how long
 * the agent waits for one, and the office hours a person can be asked for in (`handoff` of
 * PATCH /api/org/agents/{id}). Saved on its own; `onDirty` hears whether it has changes not saved yet.
 */
export function HandoffSection({ agent, onDirty }: { agent: Agent; onDirty: (dirty: boolean) => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const [zone] = useState(browserTimeZone);
  const [current, setCurrent] = useState<AgentHandoff>(() => agent.handoff);
  const [draft, setDraft] = useState<HandoffDraft>(() => fromHandoff(agent.handoff, zone));
  const set = (change: Partial<HandoffDraft>) => setDraft((d) => ({ ...d, ...change }));
  const zones = useMemo(() => timeZoneChoices(current.officeHours?.timezone ?? zone), [current, zone]);

  const save = useMutation({
    mutationFn: (next: HandoffDraft) => api.patch<Agent>(`/api/org/agents/${seg(agent.id)}`, { handoff: toHandoffBody(next) }),
    onSuccess: (result) => {
      const { handoff } = result;
      setCurrent(handoff);
      setDraft(fromHandoff(handoff, zone));
      // The agent page's own query keeps the new settings for the next visit.
      client.setQueryData<Agent>(queryKeys.agent(result.id), (old) => (old ? { ...old, handoff } : result));
      notify(handoff.enabled ? 'Hand-off is saved and on.' : 'Hand-off is saved. It is off.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(HANDOFF_FIELDS, save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    if (errors.check(formRef.current, handoffProblems(draft))) save.mutate(draft);
  }

  function toggleDay(day: Weekday, on: boolean) {
    setDraft((d) => ({ ...d, days: on ? [...d.days.filter((each) => each !== day), day] : d.days.filter((each) => each !== day) }));
  }

  const dirty = JSON.stringify(toHandoffBody(draft)) !== JSON.stringify(toHandoffBody(fromHandoff(current, zone)));
  const unsaved = !save.isPending && dirty;
  useEffect(() => onDirty(unsaved), [unsaved, onDirty]);
  const daysError = errors.error('handoff.officeHours.days');

  return (
    <section className="card" aria-labelledby="sec-agent-handoff">
      <h2 id="sec-agent-handoff">Hand-off</h2>
      <p className="muted">A visitor can ask to talk to a person of your team, and the agent can ask for one when it cannot help. Your team is told, and answers in the same chat.</p>
      <p className="chat-status" role="status">
        <span className={`badge ${current.enabled ? 'on' : 'off'}`}>{current.enabled ? 'On' : 'Off'}</span> {handoffSummary(current)}
      </p>
      <form ref={formRef} onSubmit={submit} noValidate aria-label="Hand-off settings">
        <CheckboxField
          role="switch"
          name="handoff.enabled"
          label="Let visitors ask for a person"
          hint="The widget shows Talk to a person, and the agent may ask for a person itself."
          checked={draft.enabled}
          onChange={(e) => set({ enabled: e.target.checked })}
          error={errors.error('handoff.enabled')}
        />
        <TextField
          label="Wait for a person (minutes)"
          name="handoff.waitSeconds"
          type="number"
          inputMode="decimal"
          min={0.5}
          max={60}
          step={0.5}
          className="narrow"
          hint="From 0.5 to 60. If nobody takes the chat by then, the agent says so and offers your lead form."
          value={draft.waitMinutes}
          onChange={(e) => set({ waitMinutes: e.target.value })}
          error={errors.error('handoff.waitSeconds')}
        />
        <fieldset className="handoff-hours">
          <legend>When a person can be asked for</legend>
          <div className="check">
            <input id={`${id}-always`} type="radio" name={`${id}-hours`} checked={!draft.limited} onChange={() => set({ limited: false })} />
            <label htmlFor={`${id}-always`}>At any time</label>
          </div>
          <div className="check">
            <input id={`${id}-limited`} type="radio" name={`${id}-hours`} checked={draft.limited} onChange={() => set({ limited: true })} aria-describedby={`${id}-limited-hint`} />
            <label htmlFor={`${id}-limited`}>Only during office hours</label>
            <p id={`${id}-limited-hint`} className="hint">
              Outside them the agent tells the visitor nobody is available now, and offers your lead form.
            </p>
          </div>
          {draft.limited ? (
            <div className="handoff-office">
              <SelectField
                label="Time zone"
                name="handoff.officeHours.timezone"
                value={draft.timezone}
                onChange={(e) => set({ timezone: e.target.value })}
                error={errors.error('handoff.officeHours.timezone')}
              >
                {zones.map((each) => (
                  <option key={each} value={each}>
                    {each.replaceAll('_', ' ')}
                  </option>
                ))}
              </SelectField>
              <fieldset className="handoff-days" aria-describedby={daysError ? `${id}-days-error` : undefined}>
                <legend>Days</legend>
                {WEEKDAYS.map((each) => (
                  <div className="check" key={each.day}>
                    <input
                      id={`${id}-${each.day}`}
                      type="checkbox"
                      name="handoff.officeHours.days"
                      value={each.day}
                      checked={draft.days.includes(each.day)}
                      onChange={(e) => toggleDay(each.day, e.target.checked)}
                      aria-invalid={daysError ? true : undefined}
                      aria-describedby={daysError ? `${id}-days-error` : undefined}
                    />
                    <label htmlFor={`${id}-${each.day}`}>{each.long}</label>
                  </div>
                ))}
                {daysError ? (
                  <p id={`${id}-days-error`} className="field-error">
                    {daysError}
                  </p>
                ) : null}
              </fieldset>
              <div className="row">
                <TextField
                  label="Opens at"
                  name="handoff.officeHours.open"
                  type="time"
                  value={draft.open}
                  onChange={(e) => set({ open: e.target.value })}
                  error={errors.error('handoff.officeHours.open')}
                />
                <TextField
                  label="Closes at"
                  name="handoff.officeHours.close"
                  type="time"
                  value={draft.close}
                  onChange={(e) => set({ close: e.target.value })}
                  error={errors.error('handoff.officeHours.close')}
                />
              </div>
            </div>
          ) : null}
        </fieldset>
        <FormError error={errors.general ?? errors.error('handoff.officeHours') ?? errors.error('handoff')} />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save hand-off'}
          </button>
          {dirty ? <span className="muted chat-unsaved">Not saved yet.</span> : null}
        </div>
      </form>
    </section>
  );
}
