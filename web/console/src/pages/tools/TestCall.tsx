import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import type { Agent } from '../../api/types';
import { FormError, SelectField, TextArea } from '../../components/fields';
import { useFormErrors } from '../../lib/useFormErrors';
import { callTool, toolKeys } from './api';
import type { Installation, ToolCallResult, ToolParameter } from '../../api/types';
import { parseArguments, sampleArguments } from './arguments';
import { outcomeLabel } from './format';

/** Runs one real call as an agent that has the tool (POST /api/org/agents/{id}/tool-calls) and shows what came back. */
export function TestCall({ installation, agents, parameters }: { installation: Installation; agents: Agent[]; parameters: ToolParameter[] | undefined }) {
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const resultId = useId();
  const callers = useMemo(() => (installation.allAgents ? agents : agents.filter((agent) => installation.agentIds.includes(agent.id))), [agents, installation]);
  const [agentId, setAgentId] = useState('');
  const chosen = callers.some((agent) => agent.id === agentId) ? agentId : (callers[0]?.id ?? '');
  const [text, setText] = useState<string | null>(null);
  const args = text ?? (parameters ? sampleArguments(parameters) : '{}');

  const run = useMutation({
    mutationFn: (value: Record<string, unknown> | undefined) => callTool(chosen, installation.name ?? '', value),
    // A call is answered only once it is in the call log: the lists can be read again at once. An oauth2
    // call may have renewed the token, or found the connection refused: its status is read again too.
    onSettled: () => {
      void client.invalidateQueries({ queryKey: toolKeys.allCalls });
      if (installation.authType === 'oauth2') void client.invalidateQueries({ queryKey: toolKeys.installation(installation.id), exact: true });
    },
  });
  const errors = useFormErrors(['agentId', 'arguments'], null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (run.isPending) return;
    const parsed = parseArguments(args);
    if (!errors.check(formRef.current, { agentId: chosen ? null : 'Choose an agent.', arguments: parsed.ok ? null : parsed.message })) return;
    if (parsed.ok) run.mutate(parsed.value);
  }

  if (!installation.enabled || !installation.name) return <p className="muted">The tool is withdrawn: it cannot be called until the developer publishes it again.</p>;
  if (!callers.length) return <p className="muted">No agent has this tool yet. Choose agents above to test it.</p>;
  return (
    <>
      <form ref={formRef} onSubmit={submit} noValidate aria-label="Test call">
        <SelectField label="Call as agent" name="agentId" value={chosen} onChange={(e) => setAgentId(e.target.value)} error={errors.error('agentId')}>
          {callers.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </SelectField>
        <TextArea
          label="Arguments (JSON)"
          name="arguments"
          className="tools-json"
          hint="An object keyed by parameter name. The tool receives them as an agent’s call, and this really calls it."
          rows={6}
          spellCheck={false}
          value={args}
          onChange={(e) => setText(e.target.value)}
          error={errors.error('arguments')}
        />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={run.isPending}>
            {run.isPending ? 'Calling…' : 'Run test call'}
          </button>
        </div>
      </form>
      <div id={resultId} aria-live="polite">
        {run.isSuccess ? <CallSuccess result={run.data} /> : run.isError ? <CallFailure error={run.error} /> : null}
      </div>
    </>
  );
}

function CallSuccess({ result }: { result: ToolCallResult }) {
  return (
    <div className="success tools-outcome">
      <p>
        <strong>Succeeded</strong>: HTTP {result.status} in {result.durationMs.toLocaleString()} ms.
      </p>
      <pre className="tools-result" tabIndex={0} role="region" aria-label="The tool’s answer">
        {JSON.stringify(result.result, null, 2)}
      </pre>
    </div>
  );
}

export function CallFailure({ error }: { error: unknown }) {
  if (!(error instanceof ApiError)) return <FormError error={error} />;
  return (
    <div className="form-error">
      <p>
        <strong>{outcomeLabel(error.code)}</strong> <code>{error.code}</code>
      </p>
      <p>{error.message}</p>
      {typeof error.extra.status === 'number' ? <p>The endpoint answered HTTP {error.extra.status}.</p> : null}
      {error.extra.body !== undefined ? (
        <pre className="tools-result" tabIndex={0} role="region" aria-label="The endpoint’s answer">
          {JSON.stringify(error.extra.body, null, 2)}
        </pre>
      ) : null}
      {error.details?.length ? (
        <ul className="tools-details">
          {error.details.map((detail, index) => (
            <li key={index}>
              {detail.path ? <code>{detail.path}</code> : null} {detail.message}
            </li>
          ))}
        </ul>
      ) : null}
      {typeof error.extra.callId === 'string' ? (
        <p className="small">
          This call is in the call log as <code>{error.extra.callId}</code>.
        </p>
      ) : null}
    </div>
  );
}
