import { AgentToolsSection } from '../tools/AgentToolsSection';
import { useAgent } from './tabs';

/** The agent page's "Tools and MCP": what it can call, the MCP URL and the apps connected through it, its agent keys. */
export default function ToolsTab() {
  const agent = useAgent();
  return <AgentToolsSection key={agent.id} agentId={agent.id} agentName={agent.name} />;
}
