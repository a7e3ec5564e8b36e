import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, seg } from '../../../api/client';
import type { DeveloperTool } from '../../../api/types';
import { FormError, SelectField, TextArea, TextField } from '../../../components/fields';
import { Page } from '../../../components/Page';
import { QueryState } from '../../../components/QueryState';
import { UnsavedChanges } from '../../../components/UnsavedChanges';
import { useNotify } from '../../../lib/notices';
import { useFormErrors } from '../../../lib/useFormErrors';
import { AUTH_TYPES, TOOL_CATEGORIES } from '../../tools/api';
import { categoryLabel } from '../../tools/Catalog';
import { AUTH_LABELS } from '../../tools/credentials';

/** The choices as a developer reads them: for oauth2, who connects what. */
const DEVELOPER_AUTH_LABELS = { ...AUTH_LABELS, oauth2: 'OAuth 2.0 (each business connects an account)' };
import { blankDraft, checks, comparable, draftOf, errorFields, nameProblemsAsTyped, parametersOf, TOOL_METHODS, toolBody, type ToolDraft } from './draft';
import { EndpointCheck } from './EndpointCheck';
import { ExportPreview } from './ExportPreview';
import { OAuthSection } from './OAuthSection';
import { ParameterEditor } from './ParameterEditor';
import { toolKeys } from './keys';
import './developer-tools.css';

/** `developer/tools/new` and `developer/tools/:id/edit`: the tool's definition, its working copy (publishing is on the tool's page). */
export default function ToolEditPage() {
  const { id } = useParams();
  const tool = useQuery({ queryKey: toolKeys.tool(id ?? ''), queryFn: () => api.get<DeveloperTool>(`/api/dev/tools/${seg(id ?? '')}`), enabled: id !== undefined });
  if (id === undefined) return <ToolEditor key="new" tool={null} />;
  return (
    <QueryState query={tool} what="tool">
      {(data) => <ToolEditor key={data.id} tool={data} />}
    </QueryState>
  );
}

function ToolEditor({ tool }: { tool: DeveloperTool | null }) {
  const notify = useNotify();
  const client = useQueryClient();
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const checkId = useId();
  const [draft, setDraft] = useState<ToolDraft>(() => (tool ? draftOf(tool) : blankDraft()));
  const [saved, setSaved] = useState<ToolDraft>(draft);
  const set = (change: Partial<ToolDraft>) => setDraft((d) => ({ ...d, ...change }));

  const save = useMutation({
    mutationFn: () => (tool ? api.put<DeveloperTool>(`/api/dev/tools/${seg(tool.id)}`, toolBody(draft)) : api.post<DeveloperTool>('/api/dev/tools', toolBody(draft))),
    onSuccess: (result) => {
      setSaved(draft);
      client.setQueryData(toolKeys.tool(result.id), result);
      void client.invalidateQueries({ queryKey: toolKeys.all });
      notify(tool ? `Saved “${result.name}”.` : `Tool “${result.name}” created as a draft.`);
      navigate(`/developer/tools/${result.id}`, { state: { skipUnsaved: true } });
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(errorFields(draft), save.error);
  const typed = nameProblemsAsTyped(draft);
  const errorOf = (path: string) => typed[path] ?? errors.error(path);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    if (errors.check(formRef.current, checks(draft, tool?.oauth?.hasClientSecret ?? false))) save.mutate();
  }

  const parameters = useMemo(() => parametersOf(draft), [draft]);
  const dirty = !save.isPending && !save.isSuccess && comparable(draft) !== comparable(saved);
  const title = tool ? `Edit ${tool.name}` : 'New tool';

  return (
    <Page
      title={title}
      intro={
        tool?.status === 'published'
          ? 'You are editing the working copy: businesses keep the published version until you publish again from the tool’s page.'
          : 'A tool is an HTTPS endpoint that businesses’ AI agents can call. Saving keeps it as a draft only you see.'
      }
    >
      <UnsavedChanges when={dirty} />
      <div className="editor">
        <form ref={formRef} onSubmit={submit} noValidate aria-label="Tool definition">
          <section className="card" aria-labelledby="tool-basics-title">
            <h2 id="tool-basics-title">Tool</h2>
            <TextField
              label="Tool name"
              hint="Models call the tool by this name: a letter, then letters, digits, _ or -. For example get_weather."
              required
              maxLength={64}
              spellCheck={false}
              autoComplete="off"
              value={draft.name}
              onChange={(e) => set({ name: e.target.value })}
              error={errors.error('name')}
            />
            <TextArea
              label="Description"
              hint="What the tool does and when to use it: the model reads this to decide when to call it."
              required
              maxLength={1024}
              rows={3}
              value={draft.description}
              onChange={(e) => set({ description: e.target.value })}
              error={errors.error('description')}
            />
            <SelectField label="Category" hint="Where businesses find it in the catalog." value={draft.category} onChange={(e) => set({ category: e.target.value as ToolDraft['category'] })} error={errors.error('category')}>
              {TOOL_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {categoryLabel(c)}
                </option>
              ))}
            </SelectField>
          </section>

          <section className="card" aria-labelledby="tool-endpoint-title">
            <h2 id="tool-endpoint-title">Endpoint</h2>
            <TextField
              label="Endpoint URL"
              hint="The https:// address the service calls with the arguments as JSON. It must resolve only to public addresses."
              required
              type="url"
              inputMode="url"
              spellCheck={false}
              autoComplete="off"
              placeholder="https://api.example.com/tools/weather"
              maxLength={2048}
              value={draft.endpoint}
              onChange={(e) => set({ endpoint: e.target.value })}
              error={errors.error('endpoint')}
              aria-details={checkId}
            />
            <EndpointCheck endpoint={draft.endpoint} id={checkId} />
            <div className="row">
              <SelectField label="HTTP method" hint="The JSON body is sent whatever the method." value={draft.method} onChange={(e) => set({ method: e.target.value as ToolDraft['method'] })} error={errors.error('method')}>
                {TOOL_METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </SelectField>
              <SelectField
                label="Authentication"
                hint="How businesses’ credentials are sent to your endpoint."
                value={draft.authType}
                onChange={(e) => set({ authType: e.target.value as ToolDraft['authType'] })}
                error={errors.error('authType')}
              >
                {AUTH_TYPES.map((a) => (
                  <option key={a} value={a}>
                    {DEVELOPER_AUTH_LABELS[a]}
                  </option>
                ))}
              </SelectField>
            </div>
            {draft.authType === 'api_key' ? (
              <TextField
                label="API key header"
                hint="The header that carries the key. Leave empty for X-API-Key."
                maxLength={64}
                spellCheck={false}
                autoComplete="off"
                placeholder="X-API-Key"
                value={draft.apiKeyHeader}
                onChange={(e) => set({ apiKeyHeader: e.target.value })}
                error={errors.error('apiKeyHeader')}
              />
            ) : null}
          </section>

          {draft.authType === 'oauth2' ? <OAuthSection tool={tool} oauth={draft.oauth} onChange={(oauth) => set({ oauth })} errorOf={errors.error} /> : null}

          <ParameterEditor parameters={draft.parameters} onChange={(next) => set({ parameters: next })} errorOf={errorOf} />

          <FormError error={errors.general} />
          <div className="actions sticky-actions">
            <button type="submit" className="button primary" aria-disabled={save.isPending}>
              {save.isPending ? 'Saving…' : tool ? 'Save changes' : 'Create tool'}
            </button>
            <Link className="button" to={tool ? `/developer/tools/${tool.id}` : '/developer/tools'}>
              Cancel
            </Link>
          </div>
        </form>
        <aside className="preview tool-export-aside">
          <ExportPreview name={draft.name.trim()} description={draft.description.trim()} parameters={parameters} />
        </aside>
      </div>
    </Page>
  );
}
