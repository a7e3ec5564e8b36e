import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { api, seg } from '../../api/client';
import { fetchAll, queryKeys } from '../../api/lists';
import type { Agent, AgentChat, FormWithCounts } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { CheckboxField, FormError, SelectField, TextArea, TextField } from '../../components/fields';
import { useNotify } from '../../lib/notices';
import { useFormErrors } from '../../lib/useFormErrors';
import { CHAT_FIELDS, NO_SITES, WELCOME_MAX, chatProblems, chatSnippet, fromChat, normalOrigin, originProblem, placeChatError, toChatBody, type ChatDraft } from './chat';
import { ChatPreview } from './ChatPreview';
import { agentPath } from './tabs';
import './chat.css';
import { usePublicUrl } from '../../api/session';

/** The org's forms for the lead form picker (every page; its own key: the forms page keeps pages of another shape). */
const leadFormsKey = [...queryKeys.forms, 'lead-form-choices'] as const;

/** A scheme typed halfway ("htt", "https:/") is not a mistake yet. */
const typingScheme = (typed: string) => ['https://', 'http://'].some((scheme) => scheme.startsWith(typed.trim().toLowerCase()));

/**
 * The agent page's "Chat widget": turn it on, the sites it may appear on, its welcome message, the lead
 * form its capture card uses, a daily token budget of its own; the snippet to paste, and a preview.
 * `onDirty` hears whether it has changes not saved yet (its sub-page asks before leaving with them).
 */
export function ChatWidgetSection({ agent, onDirty }: { agent: Agent; onDirty: (dirty: boolean) => void }) {
  const notify = useNotify();
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [current, setCurrent] = useState<AgentChat>(() => agent.chat);
  const [draft, setDraft] = useState<ChatDraft>(() => fromChat(agent.chat));
  const [typed, setTyped] = useState('');
  const [addProblem, setAddProblem] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  // The agent as the page's cache has it now: the Model sub-page updates it when a model is set.
  const cached = useQuery({ queryKey: queryKeys.agent(agent.id), queryFn: () => api.get<Agent>(`/api/org/agents/${seg(agent.id)}`), enabled: false });
  const hasModel = (cached.data ?? agent).model !== null;
  const forms = useQuery({ queryKey: leadFormsKey, queryFn: () => fetchAll<FormWithCounts>('/api/org/forms') });
  const set = (change: Partial<ChatDraft>) => setDraft((d) => ({ ...d, ...change }));
  const focusAdd = () => formRef.current?.querySelector<HTMLInputElement>('input[name="chat.allowedOrigins"]')?.focus();

  const save = useMutation({
    mutationFn: (next: ChatDraft) => api.patch<Agent>(`/api/org/agents/${seg(agent.id)}`, { chat: toChatBody(next) }),
    onSuccess: (result) => {
      const chat = result.chat;
      setCurrent(chat);
      setDraft(fromChat(chat));
      // The agent page's own query keeps the new settings for the next visit.
      client.setQueryData<Agent>(queryKeys.agent(result.id), (old) => (old ? { ...old, chat } : result));
      notify(chat.enabled ? 'The chat widget is saved and on.' : 'The chat widget is saved. It is off.');
    },
    onError: () => errors.focusApiError(formRef.current),
  });
  const errors = useFormErrors(CHAT_FIELDS, placeChatError(save.error));

  /** Adds what was typed when it can be; otherwise says why, on the input. Returns the new list (or null). */
  function addTyped(list: string[]): string[] | null {
    const problem = originProblem(typed, list);
    if (problem) {
      setAddProblem(problem);
      focusAdd();
      return null;
    }
    const origin = normalOrigin(typed);
    setTyped('');
    setAddProblem(null);
    setSaid(`${origin} added.`);
    return [...list, origin];
  }

  function add() {
    const next = addTyped(draft.allowedOrigins);
    if (next) set({ allowedOrigins: next });
    focusAdd();
  }

  function remove(origin: string) {
    set({ allowedOrigins: draft.allowedOrigins.filter((each) => each !== origin) });
    setSaid(`${origin} removed.`);
    focusAdd();
  }

  function onAddKey(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    add();
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    // A site typed but not added yet is added on Save (or stops it, with its problem shown).
    let next = draft;
    if (typed.trim()) {
      const origins = addTyped(draft.allowedOrigins);
      if (!origins) return;
      next = { ...draft, allowedOrigins: origins };
      setDraft(next);
    }
    if (errors.check(formRef.current, chatProblems(next))) save.mutate(next);
  }

  const liveProblem = typed.trim() && !typingScheme(typed) ? originProblem(typed, draft.allowedOrigins) : null;
  // "Add a site" said on Save goes once one is added (the other errors stay until the next Save).
  const listError = errors.error('chat.allowedOrigins');
  const originError = addProblem ?? liveProblem ?? (listError === NO_SITES && draft.allowedOrigins.length ? undefined : listError);
  const dirty = JSON.stringify(toChatBody(draft)) !== JSON.stringify(toChatBody(fromChat(current)));
  const leadForm = forms.data?.find((form) => form.id === draft.leadFormId) ?? null;
  const unsaved = !save.isPending && (dirty || typed.trim() !== '');
  useEffect(() => onDirty(unsaved), [unsaved, onDirty]);

  return (
    <section className="card" aria-labelledby="sec-agent-chat">
      <h2 id="sec-agent-chat">Chat widget</h2>
      <p className="muted">
        Visitors talk to this agent on your own site, in a chat drawn by one script tag. It answers with the agent’s model and tools.
      </p>
      <p className="chat-status" role="status">
        {current.enabled ? (
          <>
            <span className="badge on">On</span> for {current.allowedOrigins.length === 1 ? '1 site' : `${current.allowedOrigins.length} sites`}.
          </>
        ) : (
          <>
            <span className="badge off">Off</span> Visitors see nothing until you turn it on and save.
          </>
        )}
        {current.enabled && !hasModel ? (
          <>
            {' '}
            This agent has no model yet: visitors see nothing until you choose one in <Link to={agentPath(agent.id, 'model')}>Model and playground</Link>.
          </>
        ) : null}
      </p>
      <div className="editor">
        <form ref={formRef} onSubmit={submit} noValidate aria-label="Chat widget settings">
          <CheckboxField
            role="switch"
            name="chat.enabled"
            label="Show the chat widget on my sites"
            hint="Off: the snippet draws nothing and the chat answers no one."
            checked={draft.enabled}
            onChange={(e) => set({ enabled: e.target.checked })}
            error={errors.error('chat.enabled')}
          />
          <fieldset className="chat-origins">
            <legend>Sites it may appear on</legend>
            <p className="hint" id="chat-origins-hint">
              The exact address of each site: https://, the host and a port if it has one, no path. Start the host with *. for any one subdomain level, like
              https://*.example.com. On other sites the widget gets nothing.
            </p>
            {draft.allowedOrigins.length ? (
              <ul className="chosen" aria-label="Allowed sites">
                {draft.allowedOrigins.map((origin) => (
                  <li key={origin}>
                    <code className="grow">{origin}</code>
                    <button type="button" className="button small" aria-label={`Remove ${origin}`} onClick={() => remove(origin)}>
                      Remove
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No sites yet.</p>
            )}
            <div className="row chat-add">
              <TextField
                label="Add a site"
                name="chat.allowedOrigins"
                type="url"
                inputMode="url"
                spellCheck={false}
                autoComplete="off"
                placeholder="https://www.example.com"
                maxLength={300}
                value={typed}
                onChange={(e) => {
                  setTyped(e.target.value);
                  setAddProblem(null);
                }}
                onKeyDown={onAddKey}
                error={originError ?? undefined}
              />
              <button type="button" className="button" onClick={add}>
                Add site
              </button>
            </div>
            <p className="visually-hidden" role="status">
              {said}
            </p>
          </fieldset>
          <TextArea
            label="Welcome message"
            name="chat.welcomeMessage"
            rows={3}
            maxLength={WELCOME_MAX}
            hint={`The first thing visitors read when they open the chat. Up to ${WELCOME_MAX} characters.`}
            value={draft.welcomeMessage}
            onChange={(e) => set({ welcomeMessage: e.target.value })}
            error={errors.error('chat.welcomeMessage')}
          />
          <LeadFormField forms={forms} value={draft.leadFormId} onChange={(leadFormId) => set({ leadFormId })} error={errors.error('chat.leadFormId')} />
          <TextField
            label="Widget daily token budget (optional)"
            name="chat.dailyTokenBudget"
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            className="narrow"
            hint="The most model tokens this widget may use per UTC day, on top of the organization’s budget. Empty: no limit of its own."
            value={draft.dailyTokenBudget}
            onChange={(e) => set({ dailyTokenBudget: e.target.value })}
            error={errors.error('chat.dailyTokenBudget')}
          />
          <FormError error={errors.general ?? errors.error('chat')} />
          <div className="actions">
            <button type="submit" className="button primary" aria-disabled={save.isPending}>
              {save.isPending ? 'Saving…' : 'Save chat widget'}
            </button>
            {dirty ? <span className="muted chat-unsaved">Not saved yet.</span> : null}
          </div>
        </form>
        <aside className="preview" aria-labelledby="chat-preview-title">
          <h3 id="chat-preview-title">Widget preview</h3>
          <ChatPreview branding={agent.branding} welcomeMessage={draft.welcomeMessage.trim()} leadForm={leadForm} enabled={draft.enabled} />
        </aside>
      </div>
      <Snippet chatId={current.chatId} enabled={current.enabled} />
    </section>
  );
}

function LeadFormField({ forms, value, onChange, error }: { forms: UseQueryResult<FormWithCounts[]>; value: string; onChange: (id: string) => void; error: string | undefined }) {
  const hint = (
    <>
      When a visitor wants to be contacted, the agent offers a card with this form’s fields and consent text; only the visitor’s confirm sends it.{' '}
      <Link to="/forms">Your forms</Link>
    </>
  );
  const choices = forms.data ?? [];
  // A form deleted since (or not loaded yet) stays choosable as it was saved.
  const unknown = value && !choices.some((form) => form.id === value);
  return (
    <SelectField label="Lead form" name="chat.leadFormId" hint={hint} value={value} onChange={(e) => onChange(e.target.value)} error={error ?? (forms.isError ? 'Your forms could not be loaded. Reload the page to choose one.' : undefined)}>
      <option value="">None: the agent collects no leads</option>
      {unknown ? <option value={value}>{forms.isPending ? 'Loading forms…' : 'A form no longer available'}</option> : null}
      {choices.map((form) => (
        <option key={form.id} value={form.id}>
          {form.active ? form.title : `${form.title} (inactive)`}
        </option>
      ))}
    </SelectField>
  );
}

/** The tag to paste, once the agent has its public chat id. */
function Snippet({ chatId, enabled }: { chatId: string; enabled: boolean }) {
  const id = useId();
  const value = chatSnippet(usePublicUrl(), chatId);
  return (
    <div className="field snippet-field chat-snippet">
      <h3>
        <label htmlFor={id}>Snippet</label>
      </h3>
      <p id={`${id}-hint`} className="hint">
        Paste it into the HTML of each page of your sites, before &lt;/body&gt;. It works under a strict Content Security Policy that allows this server’s
        origin for scripts and connections.{enabled ? '' : ' The widget is off: it draws nothing until you turn it on and save.'}
      </p>
      <textarea id={id} className="snippet" readOnly value={value} rows={2} aria-describedby={`${id}-hint`} onFocus={(e) => e.target.select()} />
      <div>
        <CopyButton text={value} label="Copy snippet" />
      </div>
    </div>
  );
}
