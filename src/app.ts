import type { DestinationStream } from 'pino';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PurgeSchedule } from './db/expiry-purger.js';
import type { Clock } from './lib/clock.js';
import { newId } from './lib/ids.js';
import { frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { clientErrorHandler } from './http/client-error.js';
import { installConnectionFairness } from './http/connection-fairness.js';
import { proxyPeerTest } from './http/proxy-peers.js';
import type { App } from './http/app-type.js';
import { installJsonBodyParser } from './http/json-body.js';
import { installMetrics } from './metrics/serve.js';
import { registerHealthRoutes } from './http/health.js';
import { requestChildLogger, requestIdMixin } from './http/request-logger.js';
import { registerOpenApi } from './http/openapi.js';
import { createValidatorCompiler } from './http/validation.js';
import { createSerializerCompiler } from './http/serialization.js';
import { logSerializers, redactPaths } from './http/redact.js';
import { VERSION } from './version.js';
import type { BackgroundQueue } from './lib/background-queue.js';
import type { Mailer } from './lib/mailer.js';
import type { HostResolver } from './net/resolver.js';
import { createServices, type Services } from './services.js';
import { registerOAuthRoutes } from './oauth/routes.js';
import { registerAccountRoutes } from './operators/routes.js';
import { registerHttpPlugins } from './http/plugins.js';
import { registerConsoleRoutes } from './web/console-routes.js';
import { createConsoleFiles, type ConsoleFiles } from './web/console-files.js';
import { registerToolRoutes } from './tools/routes.js';
import { registerDeveloperAppRoutes } from './developers/routes.js';
import { registerDeveloperLimitRoutes } from './developers/limits-routes.js';
import { registerCatalogRoutes } from './catalog/routes.js';
import { registerCatalogPages } from './catalog/pages.js';
import { registerOrgRoutes } from './orgs/routes.js';
import { registerCrmRecordRoutes } from './crm/records-routes.js';
import { registerPrivacyRoutes } from './privacy/routes.js';
import { registerCrmSettingsRoutes } from './crm/settings-routes.js';
import { registerPublicFormRoutes } from './forms/public-routes.js';
import { registerFormRoutes } from './forms/routes.js';
import { registerHostedPageRoutes } from './forms/hosted-page.js';
import { registerAssetRoutes } from './forms/asset-routes.js';
import { createWebAssets, type WebAssets } from './forms/web-assets.js';
import { registerInvocationRoutes } from './invocation/routes.js';
import { registerConnectionRoutes } from './connections/routes.js';
import { registerModelRoutes } from './models/routes.js';
import { registerWebhookRoutes } from './webhooks/routes.js';
import type { DeliverySchedule } from './webhooks/delivery-worker.js';
import type { NotificationSchedule } from './notifications/worker.js';
import { registerNotificationRoutes } from './notifications/routes.js';
import { registerConversationRoutes } from './conversations/routes.js';
import { registerChatRoutes } from './chat/routes.js';
import { registerLeadRoutes } from './chat/lead-routes.js';
import { registerChatHandoffRoutes } from './chat/handoff-routes.js';
import { registerHandoffRoutes } from './conversations/handoff-routes.js';
import type { DeadlineSchedule } from './conversations/deadline-worker.js';
import { registerDeveloperCallRoutes } from './invocation/developer-routes.js';
import { registerMcpRoutes } from './mcp/routes.js';
import { registerMcpAuthRoutes } from './mcp-auth/routes.js';
import { MCP_SCOPE } from './mcp-auth/service.js';
import { registerAuditRoutes } from './audit/routes.js';
import { operatorRoute, registerOperatorScope } from './orgs/operator-scope.js';

export interface AppDeps {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Namespace of Redis keys and pub/sub channels (default `switchboard:`); tests isolate themselves with it. */
  redisPrefix?: string;
  /** Where logs go (default stdout); tests pass a stream to read them. */
  logStream?: DestinationStream;
  /** DNS for tool endpoint checks (A and AAAA answers as text); tests pass a fixed table. */
  resolveHost?: HostResolver;
  /** The built browser code (default: dist/web, found from this file); tests may point elsewhere. */
  webAssets?: WebAssets;
  /** Sends invitation and password-reset emails (default: nodemailer over SMTP_URL when it is set, else none). */
  mailer?: Mailer;
  /** The built console (default: dist/web/console); tests may point elsewhere. */
  consoleFiles?: ConsoleFiles;
  /** When expired rows are purged (db/expiry-purger.ts); `false` leaves it to the caller (tests that purge by hand). */
  expiryPurge?: Partial<PurgeSchedule> | false;
  /** The webhook delivery worker's polling (webhooks/delivery-worker.ts); `false` leaves it to the caller (tests that deliver by hand). */
  webhookDelivery?: Partial<DeliverySchedule> | false;
  /** The notification worker's polling (notifications/worker.ts); `false` leaves it to the caller (tests that send by hand). */
  notificationDelivery?: Partial<NotificationSchedule> | false;
  /** Work done after the answer (password-reset lookups and emails); tests pass theirs to wait for it. Drained on close either way. */
  background?: BackgroundQueue;
  /** The hand-off deadline worker's passes (conversations/deadline-worker.ts); `false` leaves them to the caller (tests that run passes by hand). */
  handoffDeadlines?: Partial<DeadlineSchedule> | false;
  /**
   * Services the caller built (createServices) and closes, after the app; the options above that
   * build services (clock, redisPrefix, resolveHost, mailer, expiryPurge, background) are then theirs.
   * Default: the app builds its own, logging through its logger, and closes them with itself.
   */
  services?: Services;
}

/**
 * Builds the HTTP application: Fastify with the cross-cutting pieces (http/), the services
 * (services.ts: every repo and service, built once), and every feature's routes over them.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;

  const trustProxy = config.trustProxy;
  const limits = config.http;
  const app: App = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: redactPaths, censor: '[redacted]' },
      // Request URLs are logged with credentials in their query or path redacted (http/redact.ts).
      serializers: logSerializers,
      // The request id on each line a request logs, bound without pino's redaction (http/request-logger.ts).
      mixin: requestIdMixin,
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    childLoggerFactory: requestChildLogger,
    genReqId: () => newId('req'),
    // A hop count trusts that many proxies nearest to us.
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy,
    bodyLimit: 256 * 1024,
    // Keys like __proto__ are refused with a 400 instead of being silently dropped.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    frameworkErrors,
    clientErrorHandler,
    // Slow or idle clients are cut off (README, "Limits"). Node checks the headers and whole-request
    // timeouts only every connectionsCheckingInterval (30 s by default): every second here, so they
    // hold within a second. Node also needs requestTimeout itself, to check headersTimeout against it.
    // connectionTimeout (socket inactivity) stays off: a request may wait silently on a tool call.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: 1000 },
    // Long ids must reach the handler and answer 404 like any unknown id, not 414 from the router.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // The connection cap, shared fairly: a share per client address (proxies named by TRUST_PROXY have
  // none), and at the cap the longest-idle connection makes room; otherwise closed on arrival.
  installConnectionFairness(app.server, {
    maxConnections: limits.maxConnections,
    maxPerAddress: limits.maxConnectionsPerAddress,
    isProxy: proxyPeerTest(trustProxy),
    log: app.log,
  });

  app.setValidatorCompiler(createValidatorCompiler());
  app.setSerializerCompiler(createSerializerCompiler());
  installJsonBodyParser(app);
  // A synchronous hook: it runs on every request, and an async one costs a promise each time. Every answer says
  // its Content-Type is the one to use (nosniff): JSON, event streams and error pages are never read as a script
  // or a page by a browser that guesses. A stream that writes its own head copies both (conversations/routes.ts).
  // Header names in lower case on every per-request path: Fastify lower-cases each name it is given, and a name
  // already in lower case is kept as it is, with no new string per request and header (docs/benchmarks.md).
  app.addHook('onRequest', function requestIdAndNosniff(request, reply, done) {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
  installErrorHandling(app);
  await registerHttpPlugins(app);
  await registerOpenApi(app, config, VERSION);
  registerHealthRoutes(app, database);

  const services = deps.services ?? (await createOwnServices(app, deps));
  installMetrics(app, services.metrics, config);
  registerRoutes(app, services, deps);
  return app;
}

/** The app's own services: they log through its logger and close with it (onClose). */
async function createOwnServices(app: App, deps: AppDeps): Promise<Services> {
  const { config, database } = deps;
  const services = await createServices(config, {
    database,
    log: app.log,
    clock: deps.clock,
    redisPrefix: deps.redisPrefix,
    resolveHost: deps.resolveHost,
    mailer: deps.mailer,
    background: deps.background,
    // Every node that serves purges; tests that purge by hand say false.
    expiryPurge: deps.expiryPurge === false ? undefined : (deps.expiryPurge ?? {}),
    // Every node that serves delivers webhooks; tests that deliver by hand say false.
    webhookDelivery: deps.webhookDelivery === false ? undefined : (deps.webhookDelivery ?? {}),
    // Every node that serves sends notification emails (when SMTP_URL is set); tests that send by hand say false.
    notificationDelivery: deps.notificationDelivery === false ? undefined : (deps.notificationDelivery ?? {}),
    // Every node that serves moves overdue hand-offs back to their agents; tests that run passes by hand say false.
    handoffDeadlines: deps.handoffDeadlines === false ? undefined : (deps.handoffDeadlines ?? {}),
  });
  app.addHook('onClose', services.close);
  return services;
}

/** Every feature's routes, over the services. */
function registerRoutes(app: App, services: Services, deps: Pick<AppDeps, 'webAssets' | 'consoleFiles'>): void {
  const { config, orgAuth, developerAuth } = services;
  const { limiter } = services.infra;
  const { mcpAuth } = services;
  // MCP hosts' grants share the token and revocation endpoints with developer apps.
  registerOAuthRoutes(app, {
    oauth: services.oauth, config,
    publicGrants: {
      exchangeCode: (body) => mcpAuth.exchangeCode(body),
      refresh: (body) => mcpAuth.refresh(body),
      owns: (token) => token.startsWith('svc_mat_') || token.startsWith('svc_mrt_'),
      revoke: (token, clientId) => mcpAuth.revoke(token, clientId),
      scopes: [MCP_SCOPE],
    },
  });
  registerToolRoutes(app, { tools: services.tools, developerAuth, limiter });
  // A developer's apps: their console session only (an access token cannot make apps).
  registerDeveloperAppRoutes(app, {
    apps: services.apps,
    requireDeveloperSession: developerAuth.requireDeveloperSession,
    developerIdOf: (request) => developerAuth.principal(request).developerId,
    auditContextOf: developerAuth.auditContext,
  });
  // The audit log: owners' at /api/org/audit-log, a developer's own at /api/dev/audit-log (session only).
  registerAuditRoutes(app, {
    audit: services.audit,
    operatorScope: (register) => registerOperatorScope(app, orgAuth, register),
    operatorRoute,
    requireOwner: orgAuth.requireOwner('read the audit log'),
    requireDeveloperSession: developerAuth.requireDeveloperSession,
    developerIdOf: (request) => developerAuth.principal(request).developerId,
  });
  // How many apps and tools a developer may have, and has (issue 32).
  registerDeveloperLimitRoutes(app, { limits: services.developerLimits, developerAuth });
  registerCatalogRoutes(app, { catalog: services.catalog });
  // The same catalog as public pages, /catalog and /catalog/{tool_id}.
  registerCatalogPages(app, { catalog: services.catalog, publicUrl: config.publicUrl });
  registerAccountRoutes(app, { operators: services.operators, sessions: services.sessions, limiter, orgAuth });
  registerOrgRoutes(app, { orgAuth, orgs: services.orgs, limits: services.orgLimits, apiKeys: services.apiKeys, agents: services.agents, agentKeys: services.agentKeys });
  registerCrmSettingsRoutes(app, { orgAuth, customFields: services.customFields, pipelines: services.pipelines });
  registerCrmRecordRoutes(app, { orgAuth, contacts: services.contacts, opportunities: services.opportunities });
  registerPrivacyRoutes(app, { orgAuth, privacy: services.privacy });
  registerModelRoutes(app, { orgAuth, models: services.models });
  registerWebhookRoutes(app, { orgAuth, webhooks: services.webhooks });
  registerNotificationRoutes(app, { orgAuth, notifications: services.notifications });
  registerConversationRoutes(app, { orgAuth, conversations: services.conversations, handoff: services.handoff });
  // Hand-off and the Inbox: take over, release, close, and the organization's live events (Server-Sent Events).
  registerHandoffRoutes(app, { orgAuth, handoff: services.handoff, live: services.live, streams: services.eventStreams });
  // Event streams end before the server waits for its connections: their clients reconnect to another node.
  app.addHook('preClose', (done) => {
    services.eventStreams.closeAll();
    done();
  });
  // The chat widget's public side (/api/public/chats/…): only from each chat's allowed origins.
  registerChatRoutes(app, { chatAuth: services.chatAuth, chat: services.chat, limiter });
  registerLeadRoutes(app, { chatAuth: services.chatAuth, lead: services.leadCapture, limiter });
  registerChatHandoffRoutes(app, { chatAuth: services.chatAuth, chat: services.chat, visitorStreams: services.visitorStreams, limiter });
  registerInvocationRoutes(app, { orgAuth, installations: services.installations, invoker: services.invoker, calls: services.calls });
  registerDeveloperCallRoutes(app, { developerAuth, developerCalls: services.developerCalls, tester: services.tester });
  // oauth2 tools: connecting an installation's account (and a developer's test account), and /oauth/callback.
  registerConnectionRoutes(app, { orgAuth, developerAuth, sessions: services.sessions, connections: services.connections });
  // MCP: the same invoker; an agent key speaks for one agent.
  registerMcpRoutes(app, {
    mcp: services.mcp, agentKeys: services.agentKeys, publicUrl: config.publicUrl,
    hostTokens: { authenticate: async (token) => { const p = await mcpAuth.authenticate(token); return p && { orgId: p.orgId, agentId: p.agentId, keyId: p.grantId }; } },
  });
  // Hosts' OAuth: resource metadata, /oauth/authorize → the console's consent page, its API, registration, connected apps.
  registerMcpAuthRoutes(app, {
    mcpAuth, repo: services.repos.mcpAuth, sessions: services.sessions, orgAuth, limiter, clock: services.clock, publicUrl: config.publicUrl, resource: services.mcpResource,
    agents: {
      list: async (orgId) => (await services.agents.list(orgId, { limit: 100 })).items.map((agent) => ({ id: agent.id, name: agent.name })),
      get: (orgId, agentId) => services.agents.get(orgId, agentId),
    },
    organizationName: async (orgId) => (await services.orgs.getOrganization(orgId)).name,
  });
  const { formCache: cache, submit, views } = services;
  registerFormRoutes(app, { forms: services.forms, orgAuth });
  registerPublicFormRoutes(app, { cache, submit, limiter, onView: views.record });
  // The hosted page /f/{slug} and the browser code it and form-embed.js users load (dist/web).
  const webAssets = deps.webAssets ?? createWebAssets();
  registerHostedPageRoutes(app, { cache, submit, limiter, assets: webAssets, onView: views.record });
  registerAssetRoutes(app, { assets: webAssets });
  // The console (dist/web/console) under /app; / leads there.
  registerConsoleRoutes(app, { files: deps.consoleFiles ?? createConsoleFiles() });
}
