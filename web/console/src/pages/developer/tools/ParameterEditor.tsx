import { useEffect, useRef, useState } from 'react';
import { CheckboxField, SelectField, TextField } from '../../../components/fields';
import { ITEM_TYPES, MAX_PARAMETERS, PARAMETER_TYPES, type ParameterType } from '../../../../../tools/parameters';
import { blankParameter, moved, type ParameterDraft } from './draft';

const TYPE_LABELS: Record<ParameterType, string> = { string: 'Text (string)', number: 'Number', boolean: 'Yes or no (boolean)', array: 'List (array)' };

/** What a row's buttons call it: its name, or its place while it has none. */
const labelOf = (p: ParameterDraft, index: number) => p.name.trim() || `parameter ${index + 1}`;

interface Props {
  parameters: ParameterDraft[];
  onChange: (next: ParameterDraft[]) => void;
  /** The error of `parameters.{i}.{field}`: the name rules as typed, then the API's refusal. */
  errorOf: (path: string) => string | undefined;
}

/**
 * The parameters the model fills in: add, remove and reorder. Move up / Move down are buttons (keyboard
 * and mouse alike, no dragging needed: WCAG 2.5.7), named "Move up: city" (the visible words first, WCAG 2.5.3); after a move the focus stays on the button pressed,
 * in the row's new place, and the new position is announced.
 */
export function ParameterEditor({ parameters, onChange, errorOf }: Props) {
  const listRef = useRef<HTMLOListElement>(null);
  const addRef = useRef<HTMLButtonElement>(null);
  const [focusNext, setFocusNext] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');

  useEffect(() => {
    if (focusNext === null) return;
    // `key:role`: the control of that role in the row of that key, wherever the row is now.
    const [key, role] = focusNext.split(':');
    const target = key === 'add' ? addRef.current : listRef.current?.querySelector<HTMLElement>(`[data-row="${key}"] [data-focus="${role}"]`);
    target?.focus();
    setFocusNext(null);
  }, [focusNext, parameters]);

  const update = (key: string, change: Partial<ParameterDraft>) => onChange(parameters.map((p) => (p.key === key ? { ...p, ...change } : p)));

  function move(index: number, by: -1 | 1) {
    const p = parameters[index];
    const to = index + by;
    if (!p || to < 0 || to >= parameters.length) return;
    onChange(moved(parameters, index, by));
    setFocusNext(`${p.key}:${by === -1 ? 'up' : 'down'}`);
    setAnnouncement(`${labelOf(p, index)} moved to position ${to + 1} of ${parameters.length}.`);
  }

  function remove(index: number) {
    const p = parameters[index];
    if (!p) return;
    const next = parameters.filter((_, i) => i !== index);
    onChange(next);
    const neighbour = next[Math.min(index, next.length - 1)];
    setFocusNext(neighbour ? `${neighbour.key}:remove` : 'add:');
    setAnnouncement(`${labelOf(p, index)} removed.`);
  }

  function add() {
    if (parameters.length >= MAX_PARAMETERS) return;
    const p = blankParameter();
    onChange([...parameters, p]);
    setFocusNext(`${p.key}:name`);
    setAnnouncement('');
  }

  return (
    <section className="card" aria-labelledby="tool-parameters-title">
      <h2 id="tool-parameters-title">Parameters</h2>
      <p className="hint">What the model fills in when it calls the tool. The service adds _svc_context itself, so no parameter may use that name.</p>
      {parameters.length === 0 ? <p>No parameters yet: the model calls this tool with {'{}'}.</p> : null}
      <ol className="parameter-list" ref={listRef}>
        {parameters.map((p, index) => {
          const label = labelOf(p, index);
          const path = `parameters.${index}`;
          return (
            <li key={p.key} className="parameter-row" data-row={p.key}>
              <fieldset>
                <legend>Parameter {index + 1}</legend>
                <div className="row">
                  <TextField
                    label="Parameter name"
                    data-focus="name"
                    value={p.name}
                    maxLength={64}
                    spellCheck={false}
                    autoComplete="off"
                    required
                    onChange={(e) => update(p.key, { name: e.target.value })}
                    error={errorOf(`${path}.name`)}
                  />
                  <SelectField label="Type" value={p.type} onChange={(e) => update(p.key, { type: e.target.value as ParameterType })} error={errorOf(`${path}.type`)}>
                    {PARAMETER_TYPES.map((type) => (
                      <option key={type} value={type}>
                        {TYPE_LABELS[type]}
                      </option>
                    ))}
                  </SelectField>
                  {p.type === 'array' ? (
                    <SelectField label="Item type" value={p.items} onChange={(e) => update(p.key, { items: e.target.value as ParameterDraft['items'] })} error={errorOf(`${path}.items`)}>
                      <option value="">Any value</option>
                      {ITEM_TYPES.map((type) => (
                        <option key={type} value={type}>
                          {TYPE_LABELS[type]}
                        </option>
                      ))}
                    </SelectField>
                  ) : null}
                </div>
                <TextField
                  label="Parameter description"
                  hint="What the value means; the model reads it."
                  value={p.description}
                  maxLength={512}
                  onChange={(e) => update(p.key, { description: e.target.value })}
                  error={errorOf(`${path}.description`)}
                />
                <CheckboxField label="Required" checked={p.required} onChange={(e) => update(p.key, { required: e.target.checked })} />
                <div className="actions">
                  <button type="button" className="button small" data-focus="up" aria-disabled={index === 0} onClick={() => move(index, -1)} aria-label={`Move up: ${label}`}>
                    Move up
                  </button>
                  <button
                    type="button"
                    className="button small"
                    data-focus="down"
                    aria-disabled={index === parameters.length - 1}
                    onClick={() => move(index, 1)}
                    aria-label={`Move down: ${label}`}
                  >
                    Move down
                  </button>
                  <button type="button" className="button small danger-outline" data-focus="remove" onClick={() => remove(index)} aria-label={`Remove ${label}`}>
                    Remove
                  </button>
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <button type="button" className="button" ref={addRef} onClick={add} aria-disabled={parameters.length >= MAX_PARAMETERS}>
        Add parameter
      </button>
      {errorOf('parameters') ? <p className="field-error">{errorOf('parameters')}</p> : null}
    </section>
  );
}
