import { describe, expect, it } from 'vitest';
import type { Installation } from '../../api/types';
import { agentsBody, draftOf, settingsPatch, settingsProblems } from './patch';

const base: Installation = {
  id: 'inst_1',
  toolId: 'tool_1',
  toolName: 'quote',
  name: 'quote',
  alias: null,
  enabled: true,
  allAgents: false,
  agentIds: ['agt_a', 'agt_b'],
  authType: 'bearer',
  credentialsSet: true,
  connection: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('the installation patch', () => {
  it('is null when nothing changed, whatever the order of the agents', () => {
    expect(settingsPatch(base, draftOf(base))).toBeNull();
    expect(settingsPatch(base, { ...draftOf(base), agentIds: ['agt_b', 'agt_a'] })).toBeNull();
    expect(settingsPatch({ ...base, allAgents: true, agentIds: [] }, { allAgents: true, agentIds: ['agt_x'], alias: '' })).toBeNull();
  });

  it('sends the agents when they changed, null for every agent', () => {
    expect(settingsPatch(base, { ...draftOf(base), agentIds: ['agt_a'] })).toEqual({ agentIds: ['agt_a'] });
    expect(settingsPatch(base, { ...draftOf(base), allAgents: true })).toEqual({ agentIds: null });
  });

  it('sends the alias trimmed, null to drop it', () => {
    expect(settingsPatch(base, { ...draftOf(base), alias: ' crm_lookup ' })).toEqual({ alias: 'crm_lookup' });
    expect(settingsPatch({ ...base, alias: 'old' }, { ...draftOf(base), alias: '' })).toEqual({ alias: null });
  });

  it('leaves the agents out of a create body for every agent', () => {
    expect(agentsBody({ allAgents: true, agentIds: ['agt_a'] })).toEqual({});
    expect(agentsBody({ allAgents: false, agentIds: ['agt_a'] })).toEqual({ agentIds: ['agt_a'] });
  });

  it('checks the alias and the agents before sending', () => {
    expect(settingsProblems({ allAgents: false, agentIds: [], alias: '' }).agentIds).toMatch(/at least one agent/);
    expect(settingsProblems({ allAgents: true, agentIds: [], alias: '1bad' }).alias).toMatch(/Start with a letter/);
    expect(settingsProblems({ allAgents: true, agentIds: [], alias: 'good_name-2' })).toEqual({ agentIds: null, alias: null });
  });
});
