import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { CheckboxField, FormError, TextField } from '../../components/fields';
import { fieldError } from '../../lib/errors';
import { addStage, checkDraft, moveItem, removeStage, renameStage, stageIndexOf, stagesPayload, type DraftStage } from './stages';

export interface PipelineInput {
  name: string;
  stages: { id?: string; name: string }[];
  isDefault: boolean;
}

/**
 * A pipeline's name and its ordered stages, for creating and editing: add, rename, move up and down,
 * remove. Nothing is sent until Save, which sends the complete list; the API's refusals (a stage that
 * still holds opportunities, a name used twice) are shown beside the stage they name, or above Save.
 */
export function PipelineEditor({
  initialName,
  initialStages,
  showDefault,
  submitLabel,
  onSubmit,
  onCancel,
  pending,
  error,
}: {
  initialName: string;
  initialStages: DraftStage[];
  /** Offer "make this the default pipeline" (not for the default itself). */
  showDefault: boolean;
  submitLabel: string;
  onSubmit: (input: PipelineInput) => void;
  onCancel?: () => void;
  pending: boolean;
  error: unknown;
}) {
  const [name, setName] = useState(initialName);
  const [stages, setStages] = useState(initialStages);
  const [isDefault, setIsDefault] = useState(false);
  const [check, setCheck] = useState<{ index: number; message: string } | null>(null);
  const [nameCheck, setNameCheck] = useState<string | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [focusTarget, setFocusTarget] = useState<{ key: string; control: string } | null>(null);
  const headingId = useId();

  // Opening the editor puts focus in its first input.
  useEffect(() => {
    formRef.current?.querySelector<HTMLInputElement>('input[name="pipeline-name"]')?.focus();
  }, []);

  // After a move, add or remove, focus stays with what the person was working on.
  useEffect(() => {
    if (!focusTarget || !list.current) return;
    const row = list.current.querySelector<HTMLElement>(`[data-stage-key="${CSS.escape(focusTarget.key)}"]`);
    const wanted = row?.querySelector<HTMLElement>(`[data-control="${focusTarget.control}"]:not(:disabled)`);
    (wanted ?? row?.querySelector<HTMLElement>('input'))?.focus();
    setFocusTarget(null);
  }, [focusTarget]);

  // A refusal that names a stage or the name moves focus there.
  useEffect(() => {
    if (!(error instanceof ApiError) || !formRef.current) return;
    const index = stageIndexOf(error.field);
    const target =
      index !== undefined
        ? formRef.current.querySelectorAll<HTMLInputElement>('[data-stage-key] input')[index]
        : error.field === 'name'
          ? formRef.current.querySelector<HTMLInputElement>('input[name="pipeline-name"]')
          : null;
    target?.focus();
  }, [error]);

  const apiIndex = error instanceof ApiError ? stageIndexOf(error.field) : undefined;
  const stageError = (index: number): string | undefined => {
    if (check && check.index === index) return check.message;
    if (apiIndex === index && error instanceof ApiError) return error.message;
    return undefined;
  };
  const nameError = nameCheck ?? fieldError(error, 'name');
  const formError = check && check.index < 0 ? new Error(check.message) : error instanceof ApiError && (apiIndex !== undefined || error.field === 'name') ? null : error;

  const move = (index: number, by: -1 | 1, control: string) => {
    const stage = stages[index];
    if (!stage) return;
    setStages(moveItem(stages, index, index + by));
    setFocusTarget({ key: stage.key, control });
  };

  const remove = (index: number) => {
    const stage = stages[index];
    if (!stage) return;
    const next = removeStage(stages, stage.key);
    setStages(next);
    const neighbour = next[Math.min(index, next.length - 1)];
    if (neighbour) setFocusTarget({ key: neighbour.key, control: 'remove' });
  };

  const add = () => {
    const next = addStage(stages);
    setStages(next);
    setFocusTarget({ key: next[next.length - 1]!.key, control: 'name' });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (pending) return;
    const trimmed = name.trim();
    setNameCheck(trimmed ? null : 'Give the pipeline a name.');
    const problem = checkDraft(stages);
    setCheck(problem);
    if (!trimmed) {
      formRef.current?.querySelector<HTMLInputElement>('input[name="pipeline-name"]')?.focus();
      return;
    }
    if (problem) {
      if (problem.index >= 0) formRef.current?.querySelectorAll<HTMLInputElement>('[data-stage-key] input')[problem.index]?.focus();
      return;
    }
    onSubmit({ name: trimmed, stages: stagesPayload(stages), isDefault });
  };

  return (
    <form ref={formRef} className="crm-editor" onSubmit={submit} noValidate>
      <TextField label="Pipeline name" name="pipeline-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} error={nameError} autoComplete="off" />
      <fieldset>
        <legend id={headingId}>Stages, in order</legend>
        <ol ref={list} className="crm-stage-list">
          {stages.map((stage, index) => {
            const label = stage.name.trim() || `stage ${index + 1}`;
            return (
              <li key={stage.key} data-stage-key={stage.key} className="crm-stage-row">
                <TextField
                  label={`Stage ${index + 1} name`}
                  value={stage.name}
                  maxLength={100}
                  required
                  data-control="name"
                  autoComplete="off"
                  onChange={(e) => setStages(renameStage(stages, stage.key, e.target.value))}
                  error={stageError(index)}
                  hint={stage.id ? undefined : 'Not saved yet'}
                />
                <div className="crm-stage-buttons">
                  <button type="button" className="button small" data-control="up" disabled={index === 0} aria-label={`Move ${label} up`} onClick={() => move(index, -1, index - 1 === 0 ? 'down' : 'up')}>
                    <span aria-hidden="true">↑</span> Up
                  </button>
                  <button
                    type="button"
                    className="button small"
                    data-control="down"
                    disabled={index === stages.length - 1}
                    aria-label={`Move ${label} down`}
                    onClick={() => move(index, 1, index + 1 === stages.length - 1 ? 'up' : 'down')}
                  >
                    <span aria-hidden="true">↓</span> Down
                  </button>
                  <button type="button" className="button small danger-outline" data-control="remove" disabled={stages.length === 1} aria-label={`Remove ${label}`} onClick={() => remove(index)}>
                    Remove
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
        <button type="button" className="button small" onClick={add} disabled={stages.length >= 50}>
          Add a stage
        </button>
        <p className="hint crm-small">Removing a stage that still holds opportunities is refused: move them first.</p>
      </fieldset>
      {showDefault ? <CheckboxField label="Make this the default pipeline" hint="Forms without a pipeline of their own add opportunities to the default one." checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} /> : null}
      <FormError error={formError} />
      <div className="actions">
        <button type="submit" className="button primary" aria-disabled={pending || undefined}>
          {pending ? 'Saving…' : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="button" onClick={() => pending || onCancel()} aria-disabled={pending || undefined}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
