import { Link } from 'react-router';
import type { Agent } from '../../api/types';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime } from '../../lib/format';
import type { Installation, ToolCall } from '../../api/types';
import { PATHS } from './format';
import { CallOutcome } from './CallOutcome';

/** Calls from the log, newest first: when, which agent and tool, how it ended. */
export function CallTable({ calls, agents, installations, label }: { calls: ToolCall[]; agents: Agent[] | undefined; installations: Installation[] | undefined; label: string }) {
  return (
    <TableWrap label={label}>
      <table>
        <caption className="visually-hidden">{label}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Agent</th>
            <th scope="col">Tool</th>
            <th scope="col">Outcome</th>
            <th scope="col" className="num tools-hide-narrow">
              Duration
            </th>
            <th scope="col" className="tools-hide-narrow">
              Through
            </th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call) => {
            const installation = installations?.find((item) => item.id === call.installationId);
            return (
              <tr key={call.id}>
                <td className="tools-nowrap">{formatDateTime(call.createdAt)}</td>
                <td className="tools-wrap">{agents?.find((agent) => agent.id === call.agentId)?.name ?? call.agentId}</td>
                <td className="tools-wrap">
                  {installation ? <Link to={`/tools/${encodeURIComponent(installation.id)}`}>{installation.name ?? installation.toolId}</Link> : <code>{call.toolId}</code>}
                </td>
                <td>
                  <CallOutcome call={call} />
                </td>
                <td className="num tools-nowrap tools-hide-narrow">{call.durationMs.toLocaleString()} ms</td>
                <td className="tools-hide-narrow">{PATHS[call.path] ?? call.path}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}
