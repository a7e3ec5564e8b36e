import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import type { DeveloperTool, ToolParameter } from '../../../api/types';
import { SelectField, TextArea, TextField } from '../../../components/fields';
import { TableWrap } from '../../../components/TableWrap';
import { useFormErrors } from '../../../lib/useFormErrors';
import { parseArguments } from '../../tools/arguments';
import { CredentialInputs } from '../../tools/CredentialInputs';
import { CREDENTIAL_FIELDS, credentialProblems, credentialsBody, type CredentialValues } from '../../tools/credentials';
import { outcomeLabel } from '../../tools/format';
import { CallFailure } from '../../tools/TestCall';
import { TestAccount } from './TestAccount';
import { testTool, toolPageKeys, type ToolTestResult } from './toolPageApi';

type FormValues = Record<string, string>;

/** A form value as the API takes it; undefined leaves the argument out. Problems are reported by `formProblems`. */
function argumentValue(p: ToolParameter, text: string): unknown {
  if (text === '') return undefined;
  if (p.type === 'number') return Number(text);
  if (p.type === 'boolean') return text === 'true';
  if (p.type === 'array') return JSON.parse(text) as unknown;
  return text;
}

function formProblems(parameters: ToolParameter[], values: FormValues): Record<string, string | null> {
  const problems: Record<string, string | null> = {};
  for (const p of parameters) {
    const text = values[p.name] ?? '';
    let problem: string | null = null;
    if (text === '') problem = null;
    else if (p.type === 'number' && !Number.isFinite(Number(text))) problem = 'Enter a number.';
    else if (p.type === 'array') {
      try {
        if (!Array.isArray(JSON.parse(text))) problem = 'Write a JSON array, like ["a", "b"].';
      } catch {
        problem = 'Write a JSON array, like ["a", "b"].';
      }
    }
    problems[`arg.${p.name}`] = problem;
  }
  return problems;
}

function argumentsFromForm(parameters: ToolParameter[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of parameters) {
    const value = argumentValue(p, values[p.name] ?? '');
    if (value !== undefined) out[p.name] = value;
  }
  return out;
}

/**
 * Test call of the working copy (POST /api/dev/tools/{id}/test): arguments from a form built from the
 * parameters, or as JSON; test credentials for the tool's authType, used once and never stored (an oauth2
 * tool's test account instead: TestAccount). Shows the exact request sent (credentials masked) and what came back.
 */
export function TestSection({ tool }: { tool: DeveloperTool }) {
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [mode, setMode] = useState<'form' | 'json'>(tool.parameters.some((p) => p.type === 'array') ? 'json' : 'form');
  const [values, setValues] = useState<FormValues>({});
  const [json, setJson] = useState('{}');
  const [credentials, setCredentials] = useState<CredentialValues>({});
  const run = useMutation({
    mutationFn: (body: Parameters<typeof testTool>[1]) => testTool(tool.id, body),
    // A sent test call is in the tool's call list before it is answered; an oauth2 one may have renewed the test
    // account's token, or found it refused.
    onSettled: () => {
      void client.invalidateQueries({ queryKey: toolPageKeys.calls(tool.id) });
      if (tool.authType === 'oauth2') void client.invalidateQueries({ queryKey: toolPageKeys.testConnection(tool.id) });
    },
  });
  const fields = ['arguments', ...tool.parameters.map((p) => `arg.${p.name}`), 'credentials.apiKey', 'credentials.token', 'credentials.username', 'credentials.password', 'credentials.secret'];
  const errors = useFormErrors(fields, null);

  const switchTo = (next: 'form' | 'json') => {
    if (next === 'json' && mode === 'form' && !Object.values(formProblems(tool.parameters, values)).some(Boolean)) {
      setJson(JSON.stringify(argumentsFromForm(tool.parameters, values), null, 2));
    }
    setMode(next);
  };

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (run.isPending) return;
    const parsed = mode === 'json' ? parseArguments(json) : null;
    const checks = {
      ...(mode === 'form' ? formProblems(tool.parameters, values) : { arguments: parsed && !parsed.ok ? parsed.message : null }),
      ...credentialProblems(tool.authType, credentials, true),
    };
    if (!errors.check(formRef.current, checks)) return;
    const args = mode === 'form' ? argumentsFromForm(tool.parameters, values) : parsed?.ok ? parsed.value : undefined;
    const creds = credentialsBody(tool.authType, credentials);
    run.mutate({ ...(args ? { arguments: args } : {}), ...(creds ? { credentials: creds } : {}) });
  }

  return (
    <section className="card" aria-labelledby="tool-test-title">
      <h2 id="tool-test-title">Test</h2>
      <p>Calls your working copy exactly as an agent&rsquo;s call would, with <code>_svc_context</code> for a test agent and organization. This really calls your endpoint.</p>
      {tool.authType === 'oauth2' ? <TestAccount tool={tool} /> : null}
      <form ref={formRef} onSubmit={submit} noValidate aria-labelledby="tool-test-title">
        <fieldset className="tool-mode">
          <legend>Arguments as</legend>
          <label>
            <input type="radio" name="mode" value="form" checked={mode === 'form'} onChange={() => switchTo('form')} /> A form
          </label>
          <label>
            <input type="radio" name="mode" value="json" checked={mode === 'json'} onChange={() => switchTo('json')} /> JSON
          </label>
        </fieldset>
        {mode === 'form' ? (
          tool.parameters.length ? (
            tool.parameters.map((p) => <ArgumentField key={p.name} parameter={p} value={values[p.name] ?? ''} onChange={(v) => setValues({ ...values, [p.name]: v })} error={errors.error(`arg.${p.name}`)} />)
          ) : (
            <p className="muted">This tool takes no arguments.</p>
          )
        ) : (
          <TextArea label="Arguments (JSON)" name="arguments" className="tools-json" hint="An object keyed by parameter name." rows={6} spellCheck={false} value={json} onChange={(e) => setJson(e.target.value)} error={errors.error('arguments')} />
        )}
        {CREDENTIAL_FIELDS[tool.authType].length ? (
          <fieldset>
            <legend>Test credentials</legend>
            <p className="hint">Used for this one request and never stored. They are masked in the request shown below.</p>
            <CredentialInputs authType={tool.authType} values={credentials} onChange={setCredentials} error={errors.error} required />
          </fieldset>
        ) : null}
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={run.isPending || undefined}>
            {run.isPending ? 'Sending…' : 'Send test call'}
          </button>
        </div>
      </form>
      <div aria-live="polite">{run.isSuccess ? <TestResult result={run.data} /> : run.isError ? <CallFailure error={run.error} /> : null}</div>
    </section>
  );
}

function ArgumentField({ parameter: p, value, onChange, error }: { parameter: ToolParameter; value: string; onChange: (value: string) => void; error: string | undefined }) {
  const hint = [p.description, p.type === 'array' ? `A JSON array${p.items ? ` of ${p.items}s` : ''}, like ${p.items === 'number' ? '[1, 2]' : '["a", "b"]'}.` : null].filter(Boolean).join(' ') || undefined;
  const label = <><code>{p.name}</code> ({p.type})</>;
  if (p.type === 'boolean') {
    return (
      <SelectField label={label} name={`arg.${p.name}`} hint={hint} value={value} onChange={(e) => onChange(e.target.value)} error={error}>
        <option value="">Not sent</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </SelectField>
    );
  }
  return (
    <TextField
      label={label}
      name={`arg.${p.name}`}
      hint={hint}
      required={p.required}
      inputMode={p.type === 'number' ? 'decimal' : undefined}
      spellCheck={false}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
    />
  );
}

/** The exact request sent (credentials masked by the API) and the response, status and time. */
function TestResult({ result }: { result: ToolTestResult }) {
  const { request, response } = result;
  return (
    <div className="tool-test-result">
      <h3>Request sent</h3>
      <p>
        <code>{request.method}</code> <code className="tool-url">{request.url}</code>
      </p>
      <TableWrap label="Request headers">
        <table>
          <caption>Headers (credentials masked)</caption>
          <thead>
            <tr>
              <th scope="col">Header</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(request.headers).map(([name, value]) => (
              <tr key={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>
                  <code className="tool-url">{value}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p className="small muted">The body exactly as sent: the bytes the signature covers.</p>
      <pre className="tools-result" tabIndex={0} role="region" aria-label="Request body">
        {request.body}
      </pre>
      <h3>Response</h3>
      {response.ok ? (
        <p className="success">
          <strong>Succeeded</strong>: HTTP {response.status} in {response.durationMs.toLocaleString()} ms.
        </p>
      ) : (
        <div className="form-error">
          <p>
            <strong>{outcomeLabel(response.code ?? '')}</strong> <code>{response.code}</code>
            {response.status !== undefined ? <> · HTTP {response.status}</> : null} in {response.durationMs.toLocaleString()} ms.
          </p>
          {response.message ? <p>{response.message}</p> : null}
        </div>
      )}
      {response.ok || response.body !== undefined ? (
        <pre className="tools-result" tabIndex={0} role="region" aria-label="Response body">
          {JSON.stringify(response.ok ? response.result : response.body, null, 2)}
        </pre>
      ) : null}
      <p className="small muted">
        Call <code>{result.callId}</code> is in the calls below, as a test.
      </p>
    </div>
  );
}
