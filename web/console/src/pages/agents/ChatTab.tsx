import { useState } from 'react';
import { UnsavedChanges } from '../../components/UnsavedChanges';
import { ChatWidgetSection } from './ChatWidgetSection';
import { HandoffSection } from './HandoffSection';
import { useAgent } from './tabs';

/**
 * The agent page's "Chat widget and hand-off": the widget on the business's own sites, and when visitors may
 * ask for a person. Two forms, each saved on its own; one question before leaving with either unsaved (a
 * router has one blocker at a time).
 */
export default function ChatTab() {
  const agent = useAgent();
  const [chatDirty, setChatDirty] = useState(false);
  const [handoffDirty, setHandoffDirty] = useState(false);
  return (
    <>
      <UnsavedChanges when={chatDirty || handoffDirty} />
      <ChatWidgetSection key={agent.id} agent={agent} onDirty={setChatDirty} />
      <HandoffSection key={`handoff-${agent.id}`} agent={agent} onDirty={setHandoffDirty} />
    </>
  );
}
