import { useOutletContext } from 'react-router';
import { seg } from '../../api/client';
import type { Agent } from '../../api/types';

/**
 * The agent page's sub-pages, in the order of its tab list: each has its own address
 * (`/agents/{id}/{path}`), title and chunk, and saves on its own. `/agents/{id}` goes to the first.
 */
export const AGENT_TABS = [
  { path: 'brand', label: 'Brand' },
  { path: 'model', label: 'Model and playground' },
  { path: 'chat', label: 'Chat widget and hand-off' },
  { path: 'tools', label: 'Tools and MCP' },
] as const;

export type AgentTab = (typeof AGENT_TABS)[number]['path'];

/** The console path of one of an agent's sub-pages (the first by default). */
export const agentPath = (id: string, tab: AgentTab = 'brand') => `/agents/${seg(id)}/${tab}`;

/** The agent the page's shared header loaded, for the sub-page drawn under it. */
export const useAgent = () => useOutletContext<Agent>();
