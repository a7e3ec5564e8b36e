import { ChatWidgetSection } from './ChatWidgetSection';
import { useAgent } from './tabs';

/** The agent page's "Chat widget and hand-off": the widget on the business's own sites. */
export default function ChatTab() {
  const agent = useAgent();
  return <ChatWidgetSection key={agent.id} agent={agent} />;
}
