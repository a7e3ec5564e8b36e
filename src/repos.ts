import { createAuditRepo, type AuditRepo } from './audit/repo.js';
import type { Kysely } from 'kysely';
import { createDevelopersRepo, type DevelopersRepo } from './developers/repo.js';
import { createAppsRepo, type AppsRepo } from './developers/apps-repo.js';
import { createCatalogRepo, type CatalogRepo } from './catalog/repo.js';
import { createContactsRepo, type ContactsRepo } from './crm/contacts-repo.js';
import { createCustomFieldsRepo, type CustomFieldsRepo } from './crm/custom-fields-repo.js';
import { createOpportunitiesRepo, type OpportunitiesRepo } from './crm/opportunities-repo.js';
import { createPipelinesRepo, type PipelinesRepo } from './crm/pipelines-repo.js';
import { createCrmRepo, type CrmRepo } from './crm/repo.js';
import type { DB } from './db/tables.js';
import { createDirectRunner, type Transact } from './db/transaction-runner.js';
import { createFormsRepo, type FormsRepo } from './forms/repo.js';
import { createInvocationRepo, type InvocationRepo } from './invocation/repo.js';
import { createModelsRepo, type ModelsRepo } from './models/repo.js';
import { createConversationsRepo, type ConversationsRepo } from './conversations/repo.js';
import { createOAuthRepo, type OAuthRepo } from './oauth/repo.js';
import { createOperatorsRepo, type OperatorsRepo } from './operators/repo.js';
import { createOrgsRepo, type OrgsRepo } from './orgs/repo.js';
import { createSessionsRepo, type SessionsRepo } from './sessions/repo.js';
import { createToolsRepo, type ToolsRepo } from './tools/repo.js';
import { createWebhooksRepo, type WebhooksRepo } from './webhooks/repo.js';
import { createChatRepo, type ChatRepo } from './chat/repo.js';
import { createConnectionsRepo, type ConnectionsRepo } from './connections/repo.js';
import { createMcpAuthRepo, type McpAuthRepo } from './mcp-auth/repo.js';
import { createNotificationsRepo, type NotificationsRepo } from './notifications/repo.js';
import { createPrivacyRepo, type PrivacyRepo } from './privacy/repo.js';

/**
 * Every feature's repo over one database handle: the pool (what services use outside
 * transactions), or one transaction (what a transaction runner hands each unit of work).
 * Each repo is made the first time it is used, so a unit of work pays only for the repos
 * it touches. Services never see this class: each one declares the repos it needs
 * (e.g. `Transact<{ forms: FormsRepo }>`), and this class has them all.
 */
export class Repos {
  #developers?: DevelopersRepo;
  #apps?: AppsRepo;
  #operators?: OperatorsRepo;
  #sessions?: SessionsRepo;
  #oauth?: OAuthRepo;
  #tools?: ToolsRepo;
  #catalog?: CatalogRepo;
  #orgs?: OrgsRepo;
  #crm?: CrmRepo;
  #contacts?: ContactsRepo;
  #opportunities?: OpportunitiesRepo;
  #pipelines?: PipelinesRepo;
  #customFields?: CustomFieldsRepo;
  #forms?: FormsRepo;
  #invocation?: InvocationRepo;
  #models?: ModelsRepo;
  #conversations?: ConversationsRepo;
  #webhooks?: WebhooksRepo;
  #chat?: ChatRepo;
  #connections?: ConnectionsRepo;
  #mcpAuth?: McpAuthRepo;
  #notifications?: NotificationsRepo;
  #audit?: AuditRepo;
  #privacy?: PrivacyRepo;

  constructor(private readonly db: Kysely<DB>) {}

  get developers(): DevelopersRepo { return (this.#developers ??= createDevelopersRepo(this.db)); }
  get apps(): AppsRepo { return (this.#apps ??= createAppsRepo(this.db)); }
  get operators(): OperatorsRepo { return (this.#operators ??= createOperatorsRepo(this.db)); }
  get sessions(): SessionsRepo { return (this.#sessions ??= createSessionsRepo(this.db)); }
  get oauth(): OAuthRepo { return (this.#oauth ??= createOAuthRepo(this.db)); }
  get tools(): ToolsRepo { return (this.#tools ??= createToolsRepo(this.db)); }
  get catalog(): CatalogRepo { return (this.#catalog ??= createCatalogRepo(this.db)); }
  get orgs(): OrgsRepo { return (this.#orgs ??= createOrgsRepo(this.db)); }
  get crm(): CrmRepo { return (this.#crm ??= createCrmRepo(this.db)); }
  get contacts(): ContactsRepo { return (this.#contacts ??= createContactsRepo(this.db)); }
  get opportunities(): OpportunitiesRepo { return (this.#opportunities ??= createOpportunitiesRepo(this.db)); }
  get pipelines(): PipelinesRepo { return (this.#pipelines ??= createPipelinesRepo(this.db)); }
  get customFields(): CustomFieldsRepo { return (this.#customFields ??= createCustomFieldsRepo(this.db)); }
  get forms(): FormsRepo { return (this.#forms ??= createFormsRepo(this.db)); }
  get invocation(): InvocationRepo { return (this.#invocation ??= createInvocationRepo(this.db)); }
  get models(): ModelsRepo { return (this.#models ??= createModelsRepo(this.db)); }
  get conversations(): ConversationsRepo { return (this.#conversations ??= createConversationsRepo(this.db)); }
  get webhooks(): WebhooksRepo { return (this.#webhooks ??= createWebhooksRepo(this.db)); }
  get chat(): ChatRepo { return (this.#chat ??= createChatRepo(this.db)); }
  get connections(): ConnectionsRepo { return (this.#connections ??= createConnectionsRepo(this.db)); }
  get mcpAuth(): McpAuthRepo { return (this.#mcpAuth ??= createMcpAuthRepo(this.db)); }
  get notifications(): NotificationsRepo { return (this.#notifications ??= createNotificationsRepo(this.db)); }
  get audit(): AuditRepo { return (this.#audit ??= createAuditRepo(this.db)); }
  get privacy(): PrivacyRepo { return (this.#privacy ??= createPrivacyRepo(this.db)); }
}

/** Units of work each in a transaction of its own, handed every repo bound to it. */
export function transactOn(db: Kysely<DB>): Transact<Repos> {
  return createDirectRunner(db, (trx) => new Repos(trx)).run;
}
