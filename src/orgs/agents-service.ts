import type { AgentsTable } from '../db/tables.js';
import type { Transact } from '../db/transaction-runner.js';
import { isForeignKeyViolation } from '../db/query-helpers.js';
import { decodeCursor, toPage } from '../http/cursor.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { OrgChangeFeed } from './changes.js';
import { agentNotFound, modelProviderNotFound } from './errors.js';
import type { OrgsRepo } from './repo.js';
import { DEFAULT_MAX_TOOL_ROUNDS, HANDOFF_WAIT_SECONDS, type Agent, type AgentChat, type AgentChatPatch, type AgentCreate, type AgentHandoff, type AgentHandoffPatch, type AgentModel, type AgentModelInput, type AgentPatch, type Branding } from './schema.js';
import { checkedOfficeHours, parseOfficeHours } from './office-hours.js';
import { httpsUrl, requiredText } from '../http/required-text.js';
import { AppError } from '../http/errors.js';
import { normalizeOrigins, parseOrigins } from './chat-origins.js';
import { refuseAtOrgLimit } from '../http/tenant-limits.js';

export function presentAgent(row: AgentsTable): Agent {
  return {
    id: row.id,
    name: row.name,
    branding: {
      name: row.brand_name,
      primaryColor: row.primary_color,
      backgroundColor: row.background_color,
      textColor: row.text_color,
      fontFamily: row.font_family,
      logoUrl: row.logo_url ?? '',
    },
    model: presentModel(row),
    chat: presentChat(row),
    handoff: presentHandoff(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function presentModel(row: AgentsTable): AgentModel | null {
  if (row.model_provider_id === null) return null;
  return {
    providerId: row.model_provider_id,
    model: row.model_name ?? '',
    instructions: row.model_instructions ?? '',
    temperature: row.model_temperature,
    maxToolRounds: row.model_max_tool_rounds ?? DEFAULT_MAX_TOOL_ROUNDS,
  };
}

/** An agent as the chat widget's public side sees it (agents-service chatOf). */
export interface PublicChatAgent {
  orgId: string;
  agentId: string;
  hasModel: boolean;
  chat: AgentChat;
  handoff: AgentHandoff;
  branding: Branding;
}

/** Hand-off settings (issue 35). */
export function presentHandoff(row: AgentsTable): AgentHandoff {
  return { enabled: row.handoff_enabled === 1, waitSeconds: row.handoff_wait_seconds, officeHours: parseOfficeHours(row.handoff_office_hours) };
}

/** The hand-off columns a patch changes (office hours checked: a 400 naming the field). */
function handoffColumns(handoff: AgentHandoffPatch): Partial<AgentsTable> {
  const set: Partial<AgentsTable> = {};
  if (handoff.enabled !== undefined) set.handoff_enabled = handoff.enabled ? 1 : 0;
  if (handoff.waitSeconds !== undefined) set.handoff_wait_seconds = handoff.waitSeconds;
  if (handoff.officeHours !== undefined) set.handoff_office_hours = handoff.officeHours === null ? null : JSON.stringify(checkedOfficeHours(handoff.officeHours));
  return set;
}

/** The chat widget's settings (issue 22). */
export function presentChat(row: AgentsTable): AgentChat {
  return {
    enabled: row.chat_enabled === 1,
    chatId: row.chat_id ?? '',
    allowedOrigins: parseOrigins(row.chat_allowed_origins),
    welcomeMessage: row.chat_welcome_message,
    leadFormId: row.chat_lead_form_id,
    dailyTokenBudget: row.chat_daily_token_budget,
  };
}

/** A new agent's chat: off, no origins, its own public id. */
function newChatColumns(): Pick<AgentsTable, 'chat_id' | 'chat_enabled' | 'chat_allowed_origins' | 'chat_welcome_message' | 'chat_lead_form_id' | 'chat_daily_token_budget' | 'handoff_enabled' | 'handoff_wait_seconds' | 'handoff_office_hours'> {
  return {
    chat_id: newId('chat'), chat_enabled: 0, chat_allowed_origins: '[]', chat_welcome_message: '', chat_lead_form_id: null, chat_daily_token_budget: null,
    handoff_enabled: 0, handoff_wait_seconds: HANDOFF_WAIT_SECONDS.default, handoff_office_hours: null,
  };
}

/** A lead form that is not the organization's (missing, or another organization's): the same answer. */
const leadFormNotFound = () => new AppError('FORM_NOT_FOUND', 'No form of your organization has that id.', { field: 'chat.leadFormId' });

/** The chat columns a patch changes (origins normalised, or a 400 naming the bad one). */
function chatColumns(chat: AgentChatPatch): Partial<AgentsTable> {
  const set: Partial<AgentsTable> = {};
  if (chat.enabled !== undefined) set.chat_enabled = chat.enabled ? 1 : 0;
  if (chat.allowedOrigins !== undefined) set.chat_allowed_origins = JSON.stringify(normalizeOrigins(chat.allowedOrigins));
  if (chat.welcomeMessage !== undefined) set.chat_welcome_message = chat.welcomeMessage.trim();
  if (chat.leadFormId !== undefined) set.chat_lead_form_id = chat.leadFormId;
  if (chat.dailyTokenBudget !== undefined) set.chat_daily_token_budget = chat.dailyTokenBudget;
  return set;
}

const NO_MODEL = { model_provider_id: null, model_name: null, model_instructions: null, model_temperature: null, model_max_tool_rounds: null } as const;

/** The agent's model columns for `model` (null clears them). */
function modelColumns(model: AgentModelInput | null): Pick<AgentsTable, keyof typeof NO_MODEL> {
  if (model === null) return NO_MODEL;
  return {
    model_provider_id: model.providerId,
    model_name: requiredText(model.model, 'model.model', 'the model\'s id, as the provider names it'),
    model_instructions: model.instructions,
    model_temperature: model.temperature ?? null,
    model_max_tool_rounds: model.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
  };
}

/** Agents and their brand (the look of the forms they are attached to). */
export function createAgentsService(deps: {
  repo: OrgsRepo;
  /** A new agent is counted against the org's limit and inserted in one transaction. */
  transact: Transact<{ orgs: OrgsRepo }>;
  clock: Clock;
  changes: OrgChangeFeed;
  /** The models feature answers whether the org has a provider (models/service.ts). */
  modelProviders: { exists(orgId: string, id: string): Promise<boolean> };
  /** The forms feature answers whether the org has a form (a chat's lead form). */
  forms: { exists(orgId: string, id: string): Promise<boolean> };
}) {
  const { repo, transact, clock, changes, modelProviders, forms } = deps;

  async function get(orgId: string, id: string): Promise<Agent> {
    const row = await repo.findAgent(orgId, id);
    if (!row) throw agentNotFound();
    return presentAgent(row);
  }

  async function create(orgId: string, input: AgentCreate): Promise<Agent> {
    const now = isoNow(clock);
    const b = input.branding;
    const row: AgentsTable = {
      id: newId('agt'),
      org_id: orgId,
      name: requiredText(input.name, 'name', 'a name for the agent'),
      brand_name: requiredText(b.name, 'branding.name', 'a brand name'),
      primary_color: b.primaryColor,
      background_color: b.backgroundColor,
      text_color: b.textColor,
      font_family: b.fontFamily?.trim() || null,
      logo_url: httpsUrl(b.logoUrl, 'branding.logoUrl'),
      created_at: now,
      updated_at: now,
      ...NO_MODEL,
      ...newChatColumns(),
    };
    await transact(async (repos) => {
      await refuseAtOrgLimit(repos, orgId, 'agents', () => repos.orgs.countAgents(orgId));
      await repos.orgs.insertAgent(row);
    });
    return presentAgent(row);
  }

  async function update(orgId: string, id: string, patch: AgentPatch): Promise<Agent> {
    if (!(await repo.findAgent(orgId, id))) throw agentNotFound();
    const b = patch.branding ?? {};
    const set: Partial<AgentsTable> = { updated_at: isoNow(clock) };
    if (patch.name !== undefined) set.name = requiredText(patch.name, 'name', 'a name for the agent');
    if (b.name !== undefined) set.brand_name = requiredText(b.name, 'branding.name', 'a brand name');
    if (b.primaryColor !== undefined) set.primary_color = b.primaryColor;
    if (b.backgroundColor !== undefined) set.background_color = b.backgroundColor;
    if (b.textColor !== undefined) set.text_color = b.textColor;
    if (b.fontFamily !== undefined) set.font_family = b.fontFamily?.trim() || null;
    if (b.logoUrl !== undefined) set.logo_url = httpsUrl(b.logoUrl, 'branding.logoUrl');
    if (patch.model !== undefined) {
      Object.assign(set, modelColumns(patch.model));
      // Another organization's provider is as unknown as a missing one.
      if (patch.model !== null && !(await modelProviders.exists(orgId, patch.model.providerId))) throw modelProviderNotFound();
    }
    const leadFormId = patch.chat?.leadFormId;
    if (patch.chat !== undefined) {
      Object.assign(set, chatColumns(patch.chat));
      // Another organization's form is as unknown as a missing one.
      if (typeof leadFormId === 'string' && !(await forms.exists(orgId, leadFormId))) throw leadFormNotFound();
    }
    if (patch.handoff !== undefined) Object.assign(set, handoffColumns(patch.handoff));
    try {
      await repo.updateAgent(orgId, id, set);
    } catch (error) {
      // The provider or the form was deleted between the check and the write: the foreign key refused it.
      if (isForeignKeyViolation(error)) {
        if (typeof leadFormId === 'string' && !(await forms.exists(orgId, leadFormId))) throw leadFormNotFound();
        if (patch.model) throw modelProviderNotFound();
      }
      throw error;
    }
    changes.notify(orgId);
    return get(orgId, id);
  }

  /** Forms that showed this brand fall back to no branding (the spec's `branding: null`). */
  async function remove(orgId: string, id: string): Promise<{ id: string; deleted: true }> {
    const result = await repo.deleteAgent(orgId, id);
    if (Number(result.numDeletedRows) === 0) throw agentNotFound();
    changes.notify(orgId);
    return { id, deleted: true };
  }

  async function list(orgId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
    const limit = query.limit ?? 20;
    const rows = await repo.listAgents(orgId, limit, decodeCursor(query.cursor));
    return toPage(rows.map((row) => ({ ...row, createdAt: row.created_at })), limit, presentAgent);
  }

  /**
   * The chat widget's view of an agent, by its public chat id (chat/): what the public side may use. Undefined
   * when no agent has that chat id. `hasModel`: a chat can answer only when the agent has a model.
   */
  async function chatOf(chatId: string): Promise<PublicChatAgent | undefined> {
    const row = await repo.findAgentByChatId(chatId);
    if (!row) return undefined;
    const agent = presentAgent(row);
    return { orgId: row.org_id, agentId: row.id, hasModel: agent.model !== null, chat: agent.chat, handoff: agent.handoff, branding: agent.branding };
  }

  return { create, get, list, update, remove, chatOf };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
