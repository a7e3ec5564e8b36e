import { Link } from 'react-router';
import { useAgents } from '../../api/lists';
import { LimitNotice, UnavailableAction } from '../../components/LimitNotice';
import { Page } from '../../components/Page';
import { limitState, useOrgLimits } from '../../lib/limits';
import { LoadError, Loading } from '../../components/QueryState';
import { Swatch } from './Swatch';
import { TableWrap } from '../../components/TableWrap';
import { agentPath } from './tabs';

export default function AgentsPage() {
  const agents = useAgents();
  const items = agents.data ?? [];
  const usage = useOrgLimits().data?.agents;
  return (
    <Page
      title="Agents"
      intro="An agent carries your brand: its colors, font and logo style the forms you assign to it."
      actions={
        !items.length ? null : limitState(usage) === 'reached' ? (
          <UnavailableAction describedBy="agents-limit">New agent</UnavailableAction>
        ) : (
          <Link className="button primary" to="/agents/new">
            New agent
          </Link>
        )
      }
    >
      <LimitNotice id="agents-limit" usage={usage} noun="agents" holder="your organization" remedy="Delete an agent you no longer use" />
      {agents.isPending ? (
        <Loading />
      ) : agents.isError ? (
        <LoadError error={agents.error} retry={() => void agents.refetch()} />
      ) : items.length === 0 ? (
        <div className="empty">
          <h2>No agents yet</h2>
          <p>Create an agent with your brand’s name, colors and logo, then choose it on a form to style that form.</p>
          <Link className="button primary" to="/agents/new">
            Create an agent
          </Link>
        </div>
      ) : (
        <TableWrap label="Agents">
          <table>
            <caption className="visually-hidden">Your agents</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Brand</th>
                <th scope="col">Colors</th>
              </tr>
            </thead>
            <tbody>
              {items.map((agent) => (
                <tr key={agent.id}>
                  <td>
                    <Link to={agentPath(agent.id)}>{agent.name}</Link>
                  </td>
                  <td>{agent.branding.name}</td>
                  <td>
                    <span className="swatches">
                      <Swatch color={agent.branding.primaryColor} label="Primary" />
                      <Swatch color={agent.branding.backgroundColor} label="Background" />
                      <Swatch color={agent.branding.textColor} label="Text" />
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Page>
  );
}
