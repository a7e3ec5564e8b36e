import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, NavLink, Outlet, useMatch, useNavigate, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { Agent } from '../../api/types';
import { ConfirmButton } from '../../components/dialogs';
import { Page } from '../../components/Page';
import { QueryState } from '../../components/QueryState';
import { useNotify } from '../../lib/notices';
import { AGENT_TABS, agentPath } from './tabs';

/**
 * An agent's page: the header every sub-page shares (its name, Delete, the way back to the agents, the tab
 * list) and the sub-page of the address under it. The tab list is plain links (`aria-current="page"` on the
 * one shown), so each sub-page has an address, Back and middle-click work; following one keeps focus on it.
 */
export default function AgentPage() {
  const { id = '' } = useParams();
  const agent = useQuery({ queryKey: queryKeys.agent(id), queryFn: () => api.get<Agent>(`/api/org/agents/${seg(id)}`) });
  // Once drawn, a failed refetch does not take the page (and its unsaved changes) away.
  if (agent.data) return <AgentShell key={agent.data.id} agent={agent.data} />;
  return (
    <QueryState query={agent} what="agent">
      {() => null}
    </QueryState>
  );
}

function AgentShell({ agent }: { agent: Agent }) {
  const notify = useNotify();
  const client = useQueryClient();
  const navigate = useNavigate();
  const shown = useMatch('/agents/:id/:tab')?.params.tab;
  const tab = AGENT_TABS.find((each) => each.path === shown);
  return (
    <Page
      title={agent.name}
      documentTitle={tab ? `${tab.label} · ${agent.name}` : agent.name}
      actions={
        <ConfirmButton
          label="Delete"
          buttonLabel={`Delete agent ${agent.name}`}
          title={`Delete “${agent.name}”?`}
          confirmLabel="Delete agent"
          onConfirm={async () => {
            await api.delete(`/api/org/agents/${seg(agent.id)}`);
            client.removeQueries({ queryKey: queryKeys.agent(agent.id) });
            await client.invalidateQueries({ queryKey: queryKeys.agents, exact: true });
            navigate('/agents', { replace: true, state: { skipUnsaved: true } });
            notify(`“${agent.name}” was deleted.`);
          }}
        >
          <p>Forms styled with its brand go back to the default style. Its agent keys and tool settings are deleted too.</p>
        </ConfirmButton>
      }
      intro={<Link to="/agents">Back to agents</Link>}
    >
      <nav className="subnav" aria-label="Agent sections" data-keep-focus="">
        <ul>
          {AGENT_TABS.map((each) => (
            <li key={each.path}>
              <NavLink to={agentPath(agent.id, each.path)}>{each.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Outlet context={agent} />
    </Page>
  );
}
