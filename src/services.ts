import { oauthRedirectUri } from './connections/redirect-uri.js';
import { createOAuthClient } from './connections/oauth-client.js';
import { createConnectionsService, expiredOAuthStates } from './connections/service.js';
import { createTokens } from './connections/tokens.js';
import { createClients } from './mcp-auth/clients.js';
import { createMcpAuthService, mcpAuthPurges } from './mcp-auth/service.js';
import { rotateConnectionTokens } from './connections/sealing.js';
import { rotateClientSecrets } from './tools/client-secret.js';
import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { createExpiryPurger, type ExpiryPurge, type PurgeSchedule } from './db/expiry-purger.js';
import type { Transact } from './db/transaction-runner.js';
import { isoNow, systemClock, type Clock } from './lib/clock.js';
import { createBackgroundQueue, type BackgroundQueue } from './lib/background-queue.js';
import { createSmtpMailer, type Mailer } from './lib/mailer.js';
import { createPasswordPolicy, loadCommonPasswords } from './lib/passwords.js';
import { keyRing } from './lib/secrets.js';
import { createInfrastructure } from './infrastructure.js';
import { Repos } from './repos.js';
import { VERSION } from './version.js';
import { systemResolver, type HostResolver } from './net/resolver.js';
import { createDeveloperAuth } from './oauth/bearer.js';
import { createOAuthService, expiredAccessTokens } from './oauth/service.js';
import { createDevelopersService } from './developers/service.js';
import { createAppsService } from './developers/apps-service.js';
import { createOperatorsService, expiredOperatorRows } from './operators/operators-service.js';
import { createSessionsService, expiredSessions } from './sessions/sessions-service.js';
import { createToolsService } from './tools/service.js';
import { createCatalogService } from './catalog/service.js';
import { createOrgAuth } from './orgs/auth.js';
import { createOrgsService } from './orgs/service.js';
import { foundOrg } from './org-founding.js';
import { createAgentsService } from './orgs/agents-service.js';
import { createAgentKeysService } from './orgs/agent-keys-service.js';
import { createApiKeysService } from './orgs/api-keys-service.js';
import { createKeyCache } from './orgs/key-cache.js';
import { createCrmService } from './crm/service.js';
import { createPrivacyService } from './privacy/service.js';
import { tombstoneHasher } from './privacy/tombstone.js';
import { createContactsService } from './crm/contacts-service.js';
import { createCustomFieldsService } from './crm/custom-fields-service.js';
import { createOpportunitiesService } from './crm/opportunities-service.js';
import { createPipelinesService } from './crm/pipelines-service.js';
import { createFormCache } from './forms/form-cache.js';
import { createNewLeadWriter } from './forms/new-lead-statement.js';
import { createLiveFormLoader, type LiveForm } from './forms/public-form.js';
import { createFormsService } from './forms/service.js';
import { createSubmitService, expiredIdempotencyKeys } from './forms/submit-service.js';
import { createFormViews } from './forms/views-service.js';
import { createToolHttpClient } from './net/http-client.js';
import { createInstallationsService } from './invocation/installations-service.js';
import { createToolCache } from './invocation/tool-cache.js';
import { createCallLog } from './invocation/call-log.js';
import { createInvoker } from './invocation/invoker.js';
import { createCallsService } from './invocation/calls-service.js';
import { createDeveloperCallsService } from './invocation/developer-calls.js';
import { createToolTester } from './invocation/tool-test.js';
import { rotateCredentials, type RotationResult } from './invocation/rotation.js';
import { createMcpServerHandler } from './mcp/server.js';
import { createModelsService } from './models/service.js';
import { rotateProviderKeys } from './models/rotation.js';
import { createModelClient } from './conversations/model-client.js';
import { createConversationsService } from './conversations/service.js';
import { createHandoff } from './conversations/handoff.js';
import { createLiveEvents } from './conversations/live.js';
import { createEventStreams } from './conversations/event-streams.js';
import { createDeadlineWorker, type DeadlineSchedule } from './conversations/deadline-worker.js';
import type { Conversation } from './conversations/schema.js';
import { createChatAuth } from './chat/session-auth.js';
import { createChatService, expiredChatSessions } from './chat/service.js';
import { createLeadCapture } from './chat/lead-service.js';
import { createVisitorStreams } from './chat/visitor-stream.js';
import { createMetrics, metricsServed } from './metrics/metrics.js';
import { createDeliveryWorker, type DeliverySchedule } from './webhooks/delivery-worker.js';
import { createWebhooksService, expiredDeliveryBodies } from './webhooks/service.js';
import { rotateWebhookSecrets } from './webhooks/rotation.js';
import { createNotificationsService } from './notifications/service.js';
import { createNotificationWorker, type NotificationSchedule } from './notifications/worker.js';
import { expiredNotices } from './notifications/purge.js';
import { retentionPurges } from './retention-purges.js';
import { createTenantLimits, DEVELOPER_LIMITS, ORG_LIMITS } from './http/tenant-limits.js';
import { orgNotFound } from './orgs/errors.js';
import { developerNotFound } from './developers/errors.js';
import { createAuditService, expiredAuditEntries } from './audit/service.js';

/** `switchboard secrets rotate`: values re-sealed under SECRETS_KEY, and those no key opened (by record id and field). */
export interface SecretsRotation {
  reencrypted: number;
  keyId: string;
  failed: Array<{ id: string; field: string; reason: string }>;
}

/** What services are built over: the things with I/O and a lifetime, made by the caller (server, CLI, demo, tests). */
export interface ServicesInfrastructure {
  database: Database;
  log: FastifyBaseLogger;
  clock?: Clock | undefined;
  /**
   * Whether to connect to REDIS_URL (when it is set) for shared rate limits and the caches' invalidation bus
   * (infrastructure.ts). The CLI says no: its writes (new orgs and keys, re-sealed credentials, a reset password)
   * change nothing a cache holds, and a command must not wait on Redis. Default yes.
   */
  redis?: boolean | undefined;
  /** Namespace of Redis keys and pub/sub channels (default `switchboard:`); tests isolate themselves with it. */
  redisPrefix?: string | undefined;
  /** DNS for tool endpoint checks (A and AAAA answers as text); tests pass a fixed table. */
  resolveHost?: HostResolver | undefined;
  /**
   * Sends invitation and password-reset emails. Default: nodemailer over SMTP_URL when it is set (closed by
   * `close()`), else none; `null`: none (the CLI prints what it would send). One passed in is the caller's to close.
   */
  mailer?: Mailer | null | undefined;
  /** Work done after the answer (password-reset lookups and emails); tests pass theirs to wait for it. Drained by `close()` either way. */
  background?: BackgroundQueue | undefined;
  /** Starts the expiry purger (db/expiry-purger.ts) on this schedule; absent, it is not started (the CLI, tests that purge by hand). */
  expiryPurge?: Partial<PurgeSchedule> | undefined;
  /** Starts the webhook delivery worker (webhooks/delivery-worker.ts) on this schedule; absent, it is not started (the CLI, tests that deliver by hand). */
  webhookDelivery?: Partial<DeliverySchedule> | undefined;
  /** Starts the notification worker (notifications/worker.ts) on this schedule when there is a mailer; absent, it is not started (the CLI, tests that send by hand). */
  notificationDelivery?: Partial<NotificationSchedule> | undefined;
  /** Starts the hand-off deadline worker (conversations/deadline-worker.ts) on this schedule; absent, it is not started (the CLI, tests that run passes by hand). */
  handoffDeadlines?: Partial<DeadlineSchedule> | undefined;
  /** A person was asked for in a conversation, in that transaction (default: the team's emails, notifications/); tests pass theirs. */
  onHandoffRequested?: ((repos: Repos, conversation: Conversation, context: { orgId: string; agentName: string }) => Promise<void>) | undefined;
}

/**
 * The limits of organizations and developers (http/tenant-limits.ts) over every feature's repos: the API's
 * GET /api/org/limits and /api/dev/limits, the CLI's `org limits` and `developer limits`. Each create counts with
 * the same repo function as `usage` here, in its own transaction (refuseAtLimit). Tests set limits through it too.
 */
export function createLimits(repos: Repos, transact: Transact<Repos>, clock: Clock) {
  const orgLimits = createTenantLimits({
    kind: ORG_LIMITS, transact, store: (unit) => unit.orgs, pool: repos.orgs, notFound: orgNotFound,
    usage: {
      agents: repos.orgs.countAgents,
      forms: repos.forms.countForms,
      apiKeys: repos.orgs.countActiveApiKeys,
      agentKeysPerAgent: repos.orgs.mostAgentKeys,
      modelProviders: repos.models.countProviders,
      customFields: repos.customFields.count,
      pipelines: repos.pipelines.count,
      pendingInvitations: (orgId) => repos.operators.countPendingInvitations(orgId, isoNow(clock)),
      webhooks: repos.webhooks.countEndpoints,
    },
  });
  const developerLimits = createTenantLimits({
    kind: DEVELOPER_LIMITS, transact, store: (unit) => unit.developers, pool: repos.developers, notFound: developerNotFound,
    usage: { apps: repos.apps.countApps, tools: repos.tools.countTools },
  });
  return { orgLimits, developerLimits };
}

/**
 * Every repo and service, built once from the configuration and the infrastructure: the one
 * wiring the HTTP app (app.ts registers routes over it), the CLI, the demo and the tests share.
 * `close()` ends what it opened, in order: event streams and the deadline worker, background work, the mailer, MCP, the call log, the webhook worker, the
 * tool HTTP client, form views, the purger, then Redis. The database stays the caller's.
 */
export async function createServices(config: Config, infrastructure: ServicesInfrastructure) {
  const { database, log } = infrastructure;
  const { db } = database;
  const clock = infrastructure.clock ?? systemClock;
  // Counted always (a few label lookups); prom-client's process defaults and the HTTP histogram only when served (metrics/serve.ts).
  const metrics = createMetrics({ processDefaults: metricsServed(config) });
  if (database.poolStats) metrics.watchPool(database.poolStats);
  const infra = await createInfrastructure({
    config: infrastructure.redis === false ? { ...config, redisUrl: undefined } : config,
    database,
    clock,
    log,
    redisPrefix: infrastructure.redisPrefix,
    onRateLimited: metrics.rateLimited,
  });
  const { transact, changes, toolChanges } = infra;
  // Every feature's repo over the pool; a unit of work gets them bound to its transaction.
  const repos = new Repos(db);
  const resolver = infrastructure.resolveHost ?? systemResolver;
  // ── The audit log ── (issue 36) Every feature that does a sensitive action is handed `audit` and records it, in
  // the action's transaction when it has one (audit/service.ts: `record`).
  const audit = createAuditService({ repo: repos.audit, clock, log });

  // The token endpoint notes each app's last token time through the owner of `apps`.
  const oauth = createOAuthService({ repo: repos.oauth, clock, apps: repos.apps });
  const passwords = createPasswordPolicy(loadCommonPasswords(), config.passwordHashCost);
  const developers = createDevelopersService({ repo: repos.developers, transact, people: repos.operators, passwords, clock });
  // The portal's apps (/api/dev/apps): deleting one, narrowing its scopes or rotating without grace ends tokens in the same transaction.
  const apps = createAppsService({ repo: repos.apps, transact, clock, audit });

  // Tool credentials, model provider keys, OAuth client secrets and tokens are sealed under SECRETS_KEY
  // (SECRETS_KEY_PREVIOUS opens older ones while rotating).
  const keys = keyRing(config.secretsKey, config.secretsKeyPrevious);

  // ── Tools and catalog ──
  const endpointPolicy = { allowPrivate: config.toolAllowPrivateEndpoints, resolver };
  // Publish, withdrawal and deletion notify `toolChanges`: the tool cache below drops what it built from the tool.
  const tools = createToolsService({ repo: repos.tools, transact, clock, endpointPolicy, keys, redirectUri: oauthRedirectUri(config.publicUrl), liveChanges: toolChanges, audit });
  const catalog = createCatalogService({ repo: repos.catalog });

  // ── Organizations and CRM ──
  // Console sessions (cookie `svc_session`), checked for CSRF on changes.
  const sessions = createSessionsService({ repo: repos.sessions, clock, limits: config.sessions, production: config.env === 'production', publicUrl: config.publicUrl });
  // The Developer API: an access token (RFC 6750), or a signed-in developer's session (CSRF-checked changes).
  const developerAuth = createDeveloperAuth(oauth, sessions.developerResolver);
  // orgAuth.require guards every /api/org/* route (an org API key, or a session); orgAuth.principal(request) → {orgId, actor, role?}.
  // Valid org API keys and agent keys by hash, so an authenticated request costs no query: revoking or
  // deleting a key drops it here and, through Redis, on every node; an org change (an agent deleted) drops the org's keys.
  const keyCache = createKeyCache({ clock, orgChanges: changes, onLookup: (hit) => metrics.cacheLookup('key', hit) });
  await infra.attachCacheBus('key-cache', keyCache);
  const orgAuth = createOrgAuth({ repo: repos.orgs, clock, keyCache, sessions: sessions.resolver });
  // The CRM and forms ask it for an org's default country and an agent's brand. A change of the
  // default country notifies `changes`: live forms are cached with it.
  const orgs = createOrgsService({ repo: repos.orgs, transact, found: foundOrg, clock, changes, tokensUsedOn: repos.conversations.tokensUsedOn, passwords, audit });

  // ── Console accounts ── (sign-up makes an org through `orgs`, as the CLI's org create does)
  // Reset requests do their lookup, writes and email here, after the answer (operators-service.ts says why).
  // Drained by close() before the mailer closes and before the database.
  const background = infrastructure.background ?? createBackgroundQueue({ log });
  const ownMailer = infrastructure.mailer === undefined && config.smtpUrl ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom }) : undefined;
  const mailer = infrastructure.mailer ?? ownMailer;
  const operators = createOperatorsService({
    repo: repos.operators,
    transact,
    orgs,
    sessions,
    developers: repos.developers,
    passwords,
    limiter: infra.limiter,
    mailer,
    background,
    clock,
    publicUrl: config.publicUrl,
    logLinks: config.env === 'development',
    log,
    audit,
  });
  // Model providers: their base URLs go through the tool endpoints' address policy, with MODEL_ALLOW_PRIVATE_ENDPOINTS.
  const models = createModelsService({ repo: repos.models, transact, keys, clock, baseUrlPolicy: { allowPrivate: config.modelAllowPrivateEndpoints, resolver }, audit });
  // One CRM service for the Operator API and form submissions.
  const crm = createCrmService({ repo: repos.crm, contacts: repos.contacts, orgs, clock });
  // Agents, custom fields, pipelines and the org's default country notify `changes`: the form, tool and key caches subscribe.
  const agents = createAgentsService({
    repo: repos.orgs, transact, clock, changes, modelProviders: models,
    // A chat's lead form must be the organization's: the forms repo answers (forms depend on orgs, not the other way round).
    forms: { exists: async (orgId, id) => (await repos.forms.findForm(orgId, id)) !== undefined },
  });
  // Agent keys for MCP (agentKeys.authenticate resolves a svc_agt_ key to its agent).
  const agentKeys = createAgentKeysService({ repo: repos.orgs, transact, clock, keyCache, audit });
  const apiKeys = createApiKeysService({ repo: repos.orgs, transact, clock, keyCache, audit });
  const customFields = createCustomFieldsService({ repo: repos.customFields, transact, clock, changes });
  const pipelines = createPipelinesService({
    repo: repos.pipelines,
    transact,
    // What an active form uses stays: the forms repo answers, in the pipeline write's transaction.
    activeFormsUsing: (unit, orgId, pipelineId, stageIds) => unit.forms.activeFormsUsing(orgId, pipelineId, stageIds),
    clock,
    changes,
  });
  const contacts = createContactsService({ repo: repos.contacts, customFields: repos.customFields, crm, orgs, transact, clock });
  // Erasing and exporting a person (docs/privacy.md): each feature's repo erases its own tables, in one transaction.
  const privacy = createPrivacyService({ repos, transact, hasher: tombstoneHasher(keys.current.key), clock, audit });
  const opportunities = createOpportunitiesService({ repo: repos.opportunities, customFields: repos.customFields, crm, orgs, transact, clock });

  // ── Tool calls ──
  // One HTTP client for every call to a tool endpoint (pooled connections per origin); closed by close().
  const toolHttp = createToolHttpClient({
    allowPrivate: config.toolAllowPrivateEndpoints,
    resolver,
    ...(config.toolCaFile ? { caFile: config.toolCaFile } : {}),
    callTimeoutMs: config.toolCallTimeoutMs,
    userAgent: `Switchboard/${VERSION}`,
  });
  // A call is answered once its log row is committed (rows group-committed); close() waits for the last ones before the database closes.
  const callLog = createCallLog({ repo: repos.invocation, transact, log, maxWaitMs: database.limits.acquireTimeoutMs, onWrite: (row) => metrics.toolCall(row.outcome, row.path, row.duration_ms) });
  // Each agent's resolved tools (live revision, credentials opened), per node: installation writes drop the org's
  // entries, tool publish/withdrawal/deletion and org changes (an agent deleted) drop theirs, on every node through Redis.
  const toolCache = createToolCache({ clock, orgChanges: changes, toolChanges, onLookup: (hit) => metrics.cacheLookup('tool', hit) });
  await infra.attachCacheBus('tool-cache', toolCache);
  // oauth2 installations show their connection and revoke it when removed (the connections service, below).
  const installations = createInstallationsService({
    repo: repos.invocation, transact, catalog, agents, clock, keys, cache: toolCache, audit,
    connections: { statuses: (orgId, ids) => connections.statuses(orgId, ids), disconnectOwned: (owner) => connections.disconnectOwned(owner) },
  });
  // ── OAuth connections ── (oauth2 tools) The protocol is oauth4webapi's, over the tool HTTP client's fetch (the
  // address policy, the call deadline, the response cap, no redirects); tokens sealed; one refresh per connection
  // at a time across nodes (a lease in the database).
  const oauthClient = createOAuthClient({ fetch: toolHttp.fetch });
  const tokens = createTokens({ repo: repos.connections, transact, client: oauthClient, keys, clock, log });
  const connections = createConnectionsService({
    repo: repos.connections, transact, client: oauthClient, tokens, keys, clock, endpointPolicy, redirectUri: oauthRedirectUri(config.publicUrl),
    targets: {
      installation: (orgId, installationId) => installations.connectionTarget(orgId, installationId),
      developerTool: (developerId, toolId) => tools.connectionTarget(developerId, toolId),
    },
  });
  const invoker = createInvoker({ installations, http: toolHttp, callLog, clock, tokens });
  const calls = createCallsService({ repo: repos.invocation });
  // ── Agent conversations ── One client for every model provider (the tool calls' connect-time address policy,
  // with MODEL_ALLOW_PRIVATE_ENDPOINTS); closed by close(). A turn's tool calls go through the same invoker.
  const modelClient = createModelClient({ allowPrivate: config.modelAllowPrivateEndpoints, resolver, timeoutMs: config.modelTimeoutMs });
  // ── Notifications ── (issue 35) Lead and hand-off emails through the mailer (SMTP_URL): queued in the producer's
  // transaction (notifications/outbox.ts), sent by a worker on every node. Without a mailer nothing is queued.
  const notifications = createNotificationsService({ repo: repos.notifications, clock, enabled: mailer !== undefined });
  // ── Hand-off and the Inbox ── (issue 35) Live events: in process, and across nodes on one Redis channel; each
  // stream is a listener here, none subscribes to Redis. The deadline worker runs on every node that serves.
  const live = createLiveEvents();
  await infra.attachCacheBus('conversation-events', live);
  const eventStreams = createEventStreams();
  const handoff = createHandoff({
    repo: repos.conversations, transact, agents, clock, live, log,
    // The lead card a timeout or a request outside office hours offers: the chat's lead form, while it is active.
    leadTool: async (orgId, agentId) => leadCapture.cardTool({ orgId, chat: (await agents.get(orgId, agentId)).chat }),
    // Besides its rows, webhook event and live event, a request for a person emails the team, in its transaction.
    onHandoffRequested: infrastructure.onHandoffRequested ?? ((txRepos, conversation, { orgId, agentName }) =>
      notifications.handoffRequested(txRepos, { orgId, conversationId: conversation.id, agentName, pageUrl: conversation.pageUrl, summary: null })),
  });
  const deadlineWorker = createDeadlineWorker({ expire: () => handoff.expireOverdue(), log, schedule: infrastructure.handoffDeadlines });
  if (infrastructure.handoffDeadlines) deadlineWorker.start();
  const conversations = createConversationsService({
    repo: repos.conversations, transact, agents, orgs, models, installations, invoker, modelClient, clock, log, handoff,
    // The longest turn the limits allow (32 tool rounds and the answer after them): a claim older than that was never released.
    turnLimitMs: 33 * config.modelTimeoutMs + 32 * config.toolCallTimeoutMs,
  });
  // ── Chat widget ── (issue 22) An agent's chat on a business's site: visitor sessions over the conversations service.
  const chatAuth = createChatAuth({ agents, repo: repos.chat, clock });
  const chat = createChatService({
    repo: repos.chat, transact, conversations, handoff, limiter: infra.limiter, extend: chatAuth.extend, clock, log,
    // Lead capture needs the forms' cache and submit path, made below: called only once requests arrive.
    lead: { offer: (live) => leadCapture.offer(live), cards: (live) => leadCapture.cards(live) },
  });
  // A visitor's event stream: this conversation's changes, read from the database as the live bus announces them.
  const visitorStreams = createVisitorStreams({
    conversations, live, streams: eventStreams, extend: chatAuth.extend, log,
    lead: { offer: (live) => leadCapture.offer(live) },
  });
  // A developer's view of their tools' calls: organizations only as HMAC references (key derived from SECRETS_KEY).
  const orgRefKey = createHmac('sha256', keys.current.key).update('switchboard/developer-org-reference').digest();
  const developerCalls = createDeveloperCallsService({ repo: repos.invocation, tools, orgRefKey, clock });
  const tester = createToolTester({ tools, http: toolHttp, callLog, clock, userAgent: `Switchboard/${VERSION}`, tokens });
  // `switchboard secrets rotate`: re-seals stored tool credentials under the ring's current key.
  // Model provider keys too; a failure names the installation (`inst_…`) or provider (`mp_…`) and field, never a value.
  const credentialRotation = {
    rotate: async (): Promise<SecretsRotation> => {
      const tools: RotationResult = await rotateCredentials(repos.invocation, keys);
      const providers = await rotateProviderKeys(repos.models, keys);
      // Webhook signing secrets too (`wh_…`, field signingSecret).
      const hooks = await rotateWebhookSecrets(repos.webhooks, keys);
      // oauth2 tools' client secrets (`tool_…`) and connections' tokens (`oac_…`).
      const clientSecrets = await rotateClientSecrets(repos.tools, keys);
      const connectionTokens = await rotateConnectionTokens(repos.connections, keys);
      return {
        reencrypted: tools.reencrypted + providers.reencrypted + hooks.reencrypted + clientSecrets.reencrypted + connectionTokens.reencrypted,
        keyId: tools.keyId,
        failed: [
          ...tools.failed.map((f) => ({ id: f.installationId, field: f.field, reason: f.reason })),
          ...providers.failed.map((f) => ({ id: f.providerId, field: 'apiKey', reason: f.reason })),
          ...hooks.failed.map((f) => ({ id: f.webhookId, field: 'signingSecret', reason: f.reason })),
          ...clientSecrets.failed.map((f) => ({ id: f.id, field: 'oauth.clientSecret', reason: f.reason })),
          ...connectionTokens.failed.map((f) => ({ id: f.id, field: 'tokens', reason: f.reason })),
        ],
      };
    },
  };

  // ── MCP ── (the same invoker; an agent key speaks for one agent)
  const mcp = createMcpServerHandler({ installations, invoker, version: VERSION, log });
  // MCP hosts' OAuth (docs/mcp.md): Switchboard is the authorization server of its own /mcp. A host's Client ID
  // Metadata Document is fetched through the tool HTTP client (the address policy, a deadline, a size cap).
  const mcpResource = `${config.publicUrl}/mcp`;
  const mcpClients = createClients({ repo: repos.mcpAuth, fetch: toolHttp.fetch, endpointPolicy, clock });
  const mcpAuth = createMcpAuthService({ repo: repos.mcpAuth, clients: mcpClients, clock, issuer: config.publicUrl, resource: mcpResource });

  // A claim holds a notice well past the mailer's longest send (lib/mailer.ts SMTP_TIMEOUTS).
  const notificationWorker = mailer ? createNotificationWorker({ repo: repos.notifications, mailer, clock, log, publicUrl: config.publicUrl, leaseMs: 5 * 60_000, schedule: infrastructure.notificationDelivery }) : undefined;
  if (infrastructure.notificationDelivery) {
    if (!notificationWorker) log.info('email notifications are off: SMTP_URL is not set');
    else if (config.notificationDelivery === 'on') notificationWorker.start();
  }

  // ── Forms ──
  // Live forms, cached with their serialized config; an org's changes drop its entries, on every node with Redis.
  const formCache = createFormCache<LiveForm>({ load: createLiveFormLoader({ repo: repos.forms, crm, orgs }), clock, onLookup: (hit) => metrics.cacheLookup('form', hit) });
  changes.subscribe(formCache.invalidateOrg);
  await infra.attachCacheBus('form-cache', formCache);
  // Views are counted in memory and written in batches; close() writes the last ones before the database closes.
  const views = createFormViews({ repo: repos.forms, clock, log });
  const forms = createFormsService({ repo: repos.forms, transact, crm, orgs, cache: formCache, clock, publicUrl: config.publicUrl, views, audit });
  const submit = createSubmitService({
    transact: infra.submissions,
    repo: repos.forms,
    crm,
    cache: formCache,
    clock,
    ...(database.dialect === 'postgres' ? { newLeadAtOnce: createNewLeadWriter(db, repos.webhooks) } : {}),
    onOutcome: metrics.submission,
    notifyLeads: notifications.enabled,
  });
  // The chat widget's lead cards (issue 22): the model proposes, only the visitor's confirm submits, through `submit`.
  const leadCapture = createLeadCapture({ forms: repos.forms, cache: formCache, submit, limiter: infra.limiter, conversations, extend: chatAuth.extend, clock });

  // ── Webhooks ── Deliveries go through the tool calls' HTTP client (connect-time address policy, no redirects,
  // TOOL_CALL_TIMEOUT_MS, 100 KB caps); URLs through the tool endpoints' save-time policy, TOOL_ALLOW_PRIVATE_ENDPOINTS
  // included. The worker runs on every node that serves; close() stops it before the HTTP client closes.
  // A claim holds a delivery past the longest attempt (the HTTP deadline) with room for recording it.
  const webhookLeaseMs = config.toolCallTimeoutMs + 30_000;
  const webhookWorker = createDeliveryWorker({ repo: repos.webhooks, transact, http: toolHttp, keys, clock, log, mailer, leaseMs: webhookLeaseMs, schedule: infrastructure.webhookDelivery });
  const webhooks = createWebhooksService({ repo: repos.webhooks, transact, keys, clock, endpointPolicy, worker: webhookWorker, leaseMs: webhookLeaseMs, audit });
  if (infrastructure.webhookDelivery && config.webhookDelivery === 'on') webhookWorker.start();

  // ── Limits ── (issue 32) What an organization and a developer may have at once, and how much of it they use.
  const { orgLimits, developerLimits } = createLimits(repos, transact, clock);

  // ── Expired rows ──
  // Every table with an expiry, or it grows forever (the token endpoint writes a row per request).
  // Runs on every node that serves; close() stops it before the database is closed.
  // Then each organization's retention settings (issue 36; docs/privacy.md): bounded batches per run.
  const purges: ExpiryPurge[] = [expiredAccessTokens(repos.oauth), expiredIdempotencyKeys(repos.forms), ...expiredSessions(repos.sessions), ...expiredOperatorRows(repos.operators), expiredDeliveryBodies(repos.webhooks), expiredChatSessions(repos.chat), expiredOAuthStates(repos.connections), ...mcpAuthPurges(repos.mcpAuth), expiredNotices(repos.notifications), expiredAuditEntries(repos.audit), ...retentionPurges(repos)];
  const purger = infrastructure.expiryPurge ? createExpiryPurger({ purges, clock, log, schedule: infrastructure.expiryPurge }) : undefined;
  purger?.start();

  let closing: Promise<void> | undefined;
  async function closeInOrder(): Promise<void> {
    // Event streams end first (the app's preClose ends them already): their clients reconnect to another node.
    eventStreams.closeAll();
    await deadlineWorker.stop();
    // Background work first: a reset email still queued needs the mailer and the database.
    await background.idle();
    // Sends in flight are recorded before the mailer and the database go.
    await notificationWorker?.stop();
    if (ownMailer) ownMailer.close();
    await mcp.close();
    await callLog.close();
    // Attempts in flight are recorded before the HTTP client and the database go.
    await webhookWorker.stop();
    await toolHttp.close();
    await modelClient.close();
    // Claims still being released in the background (the database was away) are left to go stale.
    conversations.close();
    await views.stop();
    await purger?.stop();
    await infra.close();
  }

  return {
    config,
    database,
    clock,
    log,
    metrics,
    infra,
    repos,
    audit,
    oauth,
    developerAuth,
    developers,
    apps,
    tools,
    catalog,
    sessions,
    keyCache,
    orgAuth,
    orgs,
    background,
    mailer,
    operators,
    crm,
    agents,
    models,
    agentKeys,
    apiKeys,
    customFields,
    pipelines,
    contacts,
    privacy,
    opportunities,
    toolHttp,
    callLog,
    keys,
    toolCache,
    installations,
    invoker,
    calls,
    conversations,
    live,
    eventStreams,
    handoff,
    deadlineWorker,
    chatAuth,
    chat,
    visitorStreams,
    leadCapture,
    developerCalls,
    tester,
    credentialRotation,
    connections,
    mcpAuth,
    mcpResource,
    tokens,
    mcp,
    formCache,
    views,
    forms,
    submit,
    webhooks,
    webhookWorker,
    notifications,
    notificationWorker,
    orgLimits,
    developerLimits,
    purges,
    /** Ends what createServices opened, once, in the order above; the database stays open. */
    close: () => (closing ??= closeInOrder()),
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
