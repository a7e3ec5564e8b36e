import { Playground } from '../conversations/Playground';
import { AgentModelSection } from '../models/AgentModelSection';
import { useAgent } from './tabs';

/** The agent page's "Model and playground": the model it talks with, and a conversation to try it. */
export default function ModelTab() {
  const agent = useAgent();
  return (
    <>
      <AgentModelSection key={agent.id} agent={agent} />
      <Playground key={`playground-${agent.id}`} agent={agent} />
    </>
  );
}
