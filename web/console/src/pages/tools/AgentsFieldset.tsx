import { useId } from 'react';
import { Link } from 'react-router';
import type { Agent } from '../../api/types';
import { CheckboxField } from '../../components/fields';

/** Which agents may call a tool: every agent (present and future), or the ones ticked. */
export function AgentsFieldset({
  agents,
  allAgents,
  agentIds,
  onChange,
  error,
}: {
  agents: Agent[];
  allAgents: boolean;
  agentIds: string[];
  onChange: (next: { allAgents: boolean; agentIds: string[] }) => void;
  error: string | undefined;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const toggle = (agentId: string, on: boolean) => onChange({ allAgents, agentIds: on ? [...agentIds, agentId] : agentIds.filter((x) => x !== agentId) });
  return (
    <fieldset aria-describedby={error ? errorId : undefined} aria-invalid={error ? true : undefined}>
      <legend>Agents</legend>
      <div className="check">
        <input id={`${id}-all`} type="radio" name={`${id}-agents`} checked={allAgents} onChange={() => onChange({ allAgents: true, agentIds })} />
        <label htmlFor={`${id}-all`}>All agents, including ones you add later</label>
      </div>
      <div className="check">
        <input id={`${id}-some`} type="radio" name={`${id}-agents`} checked={!allAgents} onChange={() => onChange({ allAgents: false, agentIds })} />
        <label htmlFor={`${id}-some`}>Only the agents I choose</label>
      </div>
      {!allAgents ? (
        agents.length ? (
          <div className="tools-agent-list" role="group" aria-label="Chosen agents">
            {agents.map((agent) => (
              <CheckboxField
                key={agent.id}
                label={agent.name}
                name="agentIds"
                checked={agentIds.includes(agent.id)}
                onChange={(e) => toggle(agent.id, e.target.checked)}
              />
            ))}
          </div>
        ) : (
          <p className="hint">
            You have no agents yet. <Link to="/agents/new">Create an agent</Link> first, or choose All agents.
          </p>
        )
      ) : null}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
