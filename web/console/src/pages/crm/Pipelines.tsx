import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, seg } from '../../api/client';
import type { Deleted, Pipeline } from '../../api/types';
import { LimitNotice, UnavailableAction } from '../../components/LimitNotice';
import { Page } from '../../components/Page';
import { limitKeys, limitState, useOrgLimits } from '../../lib/limits';
import { QueryState } from '../../components/QueryState';
import { FormError } from '../../components/fields';
import { useNotify } from '../../lib/notices';
import { crmKeys, fetchPipelines } from './api';
import { ConfirmButton } from '../../components/dialogs';
import { PipelineEditor, type PipelineInput } from './PipelineEditor';
import { focusSoon } from './focus';
import { draftFrom, draftFromNames } from './stages';
import './crm.css';

const STARTER_STAGES = ['New', 'Contacted', 'Won', 'Lost'];

/** Pipelines: each with its stages in order; create, rename, edit stages, make default, delete. */
export default function PipelinesPage() {
  const query = useQuery({ queryKey: crmKeys.pipelines, queryFn: ({ signal }) => fetchPipelines(signal) });
  const [creating, setCreating] = useState(false);
  const usage = useOrgLimits().data?.pipelines;

  return (
    <Page
      title="Pipelines"
      intro="Each pipeline is a board of stages. Opportunities from your forms move through them."
      actions={
        creating ? null : limitState(usage) === 'reached' ? (
          <UnavailableAction describedBy="pipelines-limit">New pipeline</UnavailableAction>
        ) : (
          <button type="button" className="button primary" data-new-pipeline onClick={() => setCreating(true)}>
            New pipeline
          </button>
        )
      }
    >
      <LimitNotice id="pipelines-limit" usage={usage} noun="pipelines" holder="your organization" remedy="Delete a pipeline you no longer use" />
      {creating ? <CreatePipeline onDone={() => setCreating(false)} /> : null}
      <QueryState query={query}>
        {(pipelines) =>
          pipelines.length === 0 ? (
            <div className="empty">
              <p>No pipelines yet. Create one to follow your opportunities stage by stage.</p>
            </div>
          ) : (
            <ul className="crm-cards" aria-label="Pipelines">
              {sortPipelines(pipelines).map((pipeline) => (
                <PipelineCard key={pipeline.id} pipeline={pipeline} />
              ))}
            </ul>
          )
        }
      </QueryState>
    </Page>
  );
}

/** By name: making one the default or renaming it does not move the card under the keyboard's focus. */
function sortPipelines(pipelines: Pipeline[]): Pipeline[] {
  return [...pipelines].sort((a, b) => a.name.localeCompare(b.name) || a.createdAt.localeCompare(b.createdAt));
}

function CreatePipeline({ onDone }: { onDone: () => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: (input: PipelineInput) => api.post<Pipeline>('/api/org/pipelines', { name: input.name, stages: input.stages.map((s) => ({ name: s.name })), ...(input.isDefault ? { isDefault: true } : {}) }),
    onSuccess: (pipeline) => {
      void client.invalidateQueries({ queryKey: crmKeys.pipelines });
      void client.invalidateQueries({ queryKey: limitKeys.all });
      notify(`Pipeline ${pipeline.name} created.`);
      onDone();
      focusSoon(`#pipeline-${CSS.escape(pipeline.id)}`, 'main h1');
    },
  });
  return (
    <section className="card crm-section" aria-labelledby="new-pipeline">
      <h2 id="new-pipeline">New pipeline</h2>
      <PipelineEditor
        initialName=""
        initialStages={draftFromNames(STARTER_STAGES)}
        showDefault
        submitLabel="Create pipeline"
        onSubmit={(input) => create.mutate(input)}
        onCancel={() => {
          onDone();
          focusSoon('[data-new-pipeline]', 'main h1');
        }}
        pending={create.isPending}
        error={create.error}
      />
    </section>
  );
}

function PipelineCard({ pipeline }: { pipeline: Pipeline }) {
  const notify = useNotify();
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const headingId = `pipeline-${pipeline.id}`;
  const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);

  const refresh = (updated?: Pipeline) => {
    if (updated) client.setQueryData(crmKeys.pipeline(updated.id), updated);
    void client.invalidateQueries({ queryKey: crmKeys.pipelines });
  };

  const update = useMutation({
    mutationFn: (input: PipelineInput) =>
      api.patch<Pipeline>(`/api/org/pipelines/${seg(pipeline.id)}`, { name: input.name, stages: input.stages, ...(input.isDefault ? { isDefault: true } : {}) }),
    onSuccess: (updated) => {
      refresh(updated);
      notify(`Pipeline ${updated.name} saved.`);
      setEditing(false);
      focusSoon(`[data-edit-pipeline="${CSS.escape(pipeline.id)}"]`);
    },
  });

  const makeDefault = useMutation({
    mutationFn: () => api.patch<Pipeline>(`/api/org/pipelines/${seg(pipeline.id)}`, { isDefault: true }),
    onSuccess: (updated) => {
      refresh(updated);
      notify(`${updated.name} is now the default pipeline.`);
      // The button is gone (this is the default now): focus goes to the card's heading.
      focusSoon(`#pipeline-${CSS.escape(updated.id)}`);
    },
  });

  return (
    <li className="card crm-pipeline" aria-labelledby={headingId}>
      <div className="crm-pipeline-head">
        <h2 id={headingId} className="crm-pipeline-name" tabIndex={-1}>
          {pipeline.name}
        </h2>
        {pipeline.isDefault ? <span className="badge on">Default</span> : null}
      </div>
      {editing ? (
        <PipelineEditor
          initialName={pipeline.name}
          initialStages={draftFrom(pipeline.stages)}
          showDefault={!pipeline.isDefault}
          submitLabel="Save pipeline"
          onSubmit={(input) => update.mutate(input)}
          onCancel={() => {
            update.reset();
            setEditing(false);
            focusSoon(`[data-edit-pipeline="${CSS.escape(pipeline.id)}"]`);
          }}
          pending={update.isPending}
          error={update.error}
        />
      ) : (
        <>
          <ol className="crm-stage-chips" aria-label={`Stages of ${pipeline.name}`}>
            {stages.map((stage) => (
              <li key={stage.id}>{stage.name}</li>
            ))}
          </ol>
          <FormError error={makeDefault.error} />
          <div className="actions">
            <Link className="button primary small" to={`/pipelines/${encodeURIComponent(pipeline.id)}`}>
              Open board<span className="visually-hidden"> for {pipeline.name}</span>
            </Link>
            <button type="button" className="button small" data-edit-pipeline={pipeline.id} aria-label={`Edit ${pipeline.name}`} onClick={() => setEditing(true)}>
              Edit
            </button>
            {pipeline.isDefault ? null : (
              <button type="button" className="button small" aria-disabled={makeDefault.isPending || undefined} onClick={() => makeDefault.isPending || makeDefault.mutate()}>
                Make default<span className="visually-hidden">: {pipeline.name}</span>
              </button>
            )}
            <ConfirmButton
              label="Delete"
              buttonLabel={`Delete ${pipeline.name}`}
              title={`Delete ${pipeline.name}?`}
              confirmLabel="Delete pipeline"
              onConfirm={async () => {
                await api.delete<Deleted>(`/api/org/pipelines/${seg(pipeline.id)}`);
                client.setQueryData<Pipeline[]>(crmKeys.pipelines, (old) => old?.filter((p) => p.id !== pipeline.id));
                client.removeQueries({ queryKey: crmKeys.pipeline(pipeline.id) });
                void client.invalidateQueries({ queryKey: crmKeys.pipelines });
                void client.invalidateQueries({ queryKey: limitKeys.all });
                notify(`Pipeline ${pipeline.name} deleted.`);
              }}
            >
              <p>The pipeline and its stages go away for good. A pipeline that still holds opportunities, or that an active form uses, cannot be deleted.</p>
            </ConfirmButton>
          </div>
        </>
      )}
    </li>
  );
}
