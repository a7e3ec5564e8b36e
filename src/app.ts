import { createHmac } from 'node:crypto';
import type { DestinationStream } from 'pino';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { DB } from './db/tables.js';
import { createExpiryPurger, type PurgeSchedule } from './db/expiry-purger.js';
import { systemClock, type Clock } from './lib/clock.js';
import { newId } from './lib/ids.js';
import { frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { clientErrorHandler } from './http/client-error.js';
import { installConnectionFairness } from './http/connection-fairness.js';
import { proxyPeerTest } from './http/proxy-peers.js';
import type { App } from './http/app-type.js';
import { installJsonBodyParser } from './http/json-body.js';
import { registerHealthRoutes } from './http/health.js';
import { registerOpenApi } from './http/openapi.js';
import { createValidatorCompiler } from './http/validation.js';
import { createSerializerCompiler } from './http/serialization.js';
import { logSerializers, redactPaths } from './http/redact.js';
import { VERSION } from './version.js';
import { createDeveloperAuth } from './oauth/bearer.js';
import { registerOAuthRoutes } from './oauth/routes.js';
import { createOAuthService, expiredAccessTokens } from './oauth/service.js';
import { createAccountsService, type AccountsService } from './accounts/service.js';
import { createSmtpMailer, type Mailer } from './accounts/mailer.js';
import { createOperatorsService, type OperatorsService } from './accounts/operators-service.js';
import { createPasswordPolicy, loadCommonPasswords } from './accounts/passwords.js';
import { registerAccountRoutes } from './accounts/routes.js';
import { registerHttpPlugins } from './http/plugins.js';
import { createSessionsService, expiredAccountRows } from './accounts/sessions-service.js';
import { registerConsoleRoutes } from './web/console-routes.js';
import { createConsoleFiles, type ConsoleFiles } from './web/console-files.js';
import { systemResolver, type HostResolver } from './net/resolver.js';
import { registerToolRoutes } from './tools/routes.js';
import { createToolsService } from './tools/service.js';
import { registerCatalogRoutes } from './catalog/routes.js';
import { createCatalogService } from './catalog/service.js';
import { createOrgAuth } from './orgs/auth.js';
import { createCrmService } from './crm/service.js';
import { createAgentsService } from './orgs/agents-service.js';
import { createAgentKeysService } from './orgs/agent-keys-service.js';
import { createApiKeysService, type ApiKeysService } from './orgs/api-keys-service.js';
import { registerOrgRoutes } from './orgs/routes.js';
import { createOrgChangeFeed } from './orgs/changes.js';
import { createKeyCache } from './orgs/key-cache.js';
import { createOrgsService, type OrgsService } from './orgs/service.js';
import { createContactsService } from './crm/contacts-service.js';
import { createCustomFieldsService } from './crm/custom-fields-service.js';
import { createOpportunitiesService } from './crm/opportunities-service.js';
import { createPipelinesService } from './crm/pipelines-service.js';
import { registerCrmRecordRoutes } from './crm/records-routes.js';
import { registerCrmSettingsRoutes } from './crm/settings-routes.js';
import { createFormCache } from './forms/form-cache.js';
import { insertNewLeadAtOnce, type NewLeadRows } from './forms/new-lead-statement.js';
import { createLiveFormLoader, type LiveForm } from './forms/public-form.js';
import { registerPublicFormRoutes } from './forms/public-routes.js';
import { registerFormRoutes } from './forms/routes.js';
import { createFormsService } from './forms/service.js';
import { createSubmitService, expiredIdempotencyKeys } from './forms/submit-service.js';
import { registerHostedPageRoutes } from './forms/hosted-page.js';
import { registerAssetRoutes } from './forms/asset-routes.js';
import { createFormViews } from './forms/views-service.js';
import { createWebAssets, type WebAssets } from './forms/web-assets.js';
import { createInfrastructure } from './infrastructure.js';
import { createBackgroundQueue, type BackgroundQueue } from './lib/background-queue.js';
import { createMemoryRateLimitStore } from './http/rate-limit-memory.js';
import { createRateLimiter } from './http/rate-limit.js';
import { createMemorySlidingStore } from './http/rate-limit-sliding.js';
import { Repos, transactOn } from './repos.js';
import { keyRing, type KeyRing } from './lib/secrets.js';
import { createToolHttpClient } from './invocation/http-client.js';
import { createInstallationsService } from './invocation/service.js';
import { createToolCache } from './invocation/tool-cache.js';
import { createCallLog } from './invocation/call-log.js';
import { createInvoker } from './invocation/invoker.js';
import { createCallsService } from './invocation/calls-service.js';
import { registerInvocationRoutes } from './invocation/routes.js';
import { createDeveloperCallsService } from './invocation/developer-calls.js';
import { registerDeveloperCallRoutes } from './invocation/developer-routes.js';
import { createToolTester } from './invocation/tool-test.js';
import { rotateCredentials, type RotationResult } from './invocation/rotation.js';
import { createMcpServerHandler } from './mcp/server.js';
import { registerMcpRoutes } from './mcp/routes.js';

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
  /** Work done after the answer (password-reset lookups and emails); tests pass theirs to wait for it. Drained on close either way. */
  background?: BackgroundQueue;
}

/** The orgs service outside the HTTP app (the CLI's `org create`, tests, benchmarks): no form cache listens to its changes. */
export function createStandaloneOrgsService(db: Kysely<DB>, clock: Clock): OrgsService {
  return createOrgsService({ repo: new Repos(db).orgs, transact: transactOn(db), clock, changes: createOrgChangeFeed() });
}

/** Developer accounts outside the HTTP app (the CLI's developer and app commands). */
export function createStandaloneAccountsService(db: Kysely<DB>, clock: Clock): AccountsService {
  return createAccountsService({ repo: new Repos(db).accounts, clock });
}

/** Operator accounts outside the HTTP app (the CLI's `user reset-password` and `demo`): no mailer, no rate limits to speak of. */
export function createStandaloneOperatorsService(db: Kysely<DB>, clock: Clock, config: Config, log: FastifyBaseLogger): OperatorsService {
  const repos = new Repos(db);
  const sessions = createSessionsService({ repo: repos.accounts, clock, limits: config.sessions, production: config.env === 'production', publicUrl: config.publicUrl });
  return createOperatorsService({
    repo: repos.accounts,
    transact: transactOn(db),
    orgs: createStandaloneOrgsService(db, clock),
    sessions,
    passwords: createPasswordPolicy(loadCommonPasswords()),
    limiter: createRateLimiter({ store: createMemoryRateLimitStore(), sliding: createMemorySlidingStore(), clock }),
    mailer: undefined,
    background: createBackgroundQueue({ log }),
    clock,
    publicUrl: config.publicUrl,
    logLinks: false,
    log,
  });
}

/** Org API keys outside the HTTP app (the CLI's `api-key create`). */
export function createStandaloneApiKeysService(db: Kysely<DB>, clock: Clock): ApiKeysService {
  return createApiKeysService({ repo: new Repos(db).orgs, clock });
}

/** Credential rotation outside the HTTP app (the CLI's `secrets rotate`): re-seals stored tool credentials under the ring's current key. */
export function createStandaloneCredentialRotation(db: Kysely<DB>, keys: KeyRing): { rotate(): Promise<RotationResult> } {
  const repo = new Repos(db).invocation;
  return { rotate: () => rotateCredentials(repo, keys) };
}

/**
 * Builds the HTTP application: the composition root. It builds the shared infrastructure once
 * (infrastructure.ts), then every repo and service, and registers every feature's routes.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  const clock = deps.clock ?? systemClock;

  const trustProxy = config.trustProxy;
  const limits = config.http;
  const app: App = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: redactPaths, censor: '[redacted]' },
      // Request URLs are logged with credentials in their query or path redacted (http/redact.ts).
      serializers: logSerializers,
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
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
  // A synchronous hook: it runs on every request, and an async one costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  installErrorHandling(app);
  await registerHttpPlugins(app);
  await registerOpenApi(app, config, VERSION);
  registerHealthRoutes(app, database);

  const { db } = database;
  const infra = await createInfrastructure({ config, database, clock, log: app.log, redisPrefix: deps.redisPrefix });
  app.addHook('onClose', infra.close);
  const { transact, changes, toolChanges } = infra;
  // Every feature's repo over the pool; a unit of work gets them bound to its transaction.
  const repos = new Repos(db);

  const oauth = createOAuthService({ repo: repos.oauth, clock });
  const developerAuth = createDeveloperAuth(oauth);
  registerOAuthRoutes(app, { oauth, config });

  // ── Tools and catalog ──
  const endpointPolicy = { allowPrivate: config.toolAllowPrivateEndpoints, resolver: deps.resolveHost ?? systemResolver };
  // Publish, withdrawal and deletion notify `toolChanges`: the tool cache below drops what it built from the tool.
  const tools = createToolsService({ repo: repos.tools, clock, endpointPolicy, liveChanges: toolChanges });
  registerToolRoutes(app, { tools, developerAuth });
  const catalog = createCatalogService({ repo: repos.catalog });
  registerCatalogRoutes(app, { catalog });

  // ── Organizations and CRM ──
  // Console sessions (cookie `svc_session`), checked for CSRF on changes.
  const sessions = createSessionsService({ repo: repos.accounts, clock, limits: config.sessions, production: config.env === 'production', publicUrl: config.publicUrl });
  // orgAuth.require guards every /api/org/* route (an org API key, or a session); orgAuth.principal(request) → {orgId, actor, role?}.
  // Valid org API keys and agent keys by hash, so an authenticated request costs no query: revoking or
  // deleting a key drops it here and, through Redis, on every node; an org change (an agent deleted) drops the org's keys.
  const keyCache = createKeyCache({ clock, orgChanges: changes });
  await infra.attachCacheBus('key-cache', keyCache);
  const orgAuth = createOrgAuth({ repo: repos.orgs, clock, keyCache, sessions: sessions.resolver });
  // The CRM and forms ask it for an org's default country and an agent's brand. A change of the
  // default country notifies `changes`: live forms are cached with it.
  const orgs = createOrgsService({ repo: repos.orgs, transact, clock, changes });

  // ── Console accounts ── (sign-up makes an org through `orgs`, as the CLI's org create does)
  // Reset requests do their lookup, writes and email here, after the answer (operators-service.ts says why).
  // Drained on close before the mailer closes (onClose hooks run in the order they are added) and before the database.
  const background = deps.background ?? createBackgroundQueue({ log: app.log });
  app.addHook('onClose', () => background.idle());
  const mailer = deps.mailer ?? (config.smtpUrl ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom }) : undefined);
  if (mailer && !deps.mailer) app.addHook('onClose', async () => mailer.close());
  const operators = createOperatorsService({
    repo: repos.accounts,
    transact,
    orgs,
    sessions,
    passwords: createPasswordPolicy(loadCommonPasswords()),
    limiter: infra.limiter,
    mailer,
    background,
    clock,
    publicUrl: config.publicUrl,
    logLinks: config.env === 'development',
    log: app.log,
  });
  registerAccountRoutes(app, { operators, sessions, limiter: infra.limiter, orgAuth });
  // One CRM service for the Operator API and form submissions.
  const crm = createCrmService({ repo: repos.crm, contacts: repos.contacts, orgs, clock });
  // Agents, custom fields, pipelines and the org's default country notify `changes`: the form, tool and key caches subscribe.
  const agents = createAgentsService({ repo: repos.orgs, clock, changes });
  // Agent keys for MCP (agentKeys.authenticate resolves a svc_agt_ key to its agent).
  const agentKeys = createAgentKeysService({ repo: repos.orgs, clock, keyCache });
  registerOrgRoutes(app, {
    orgAuth,
    orgs,
    apiKeys: createApiKeysService({ repo: repos.orgs, clock, keyCache }),
    agents,
    agentKeys,
  });
  registerCrmSettingsRoutes(app, {
    orgAuth,
    customFields: createCustomFieldsService({ repo: repos.customFields, clock, changes }),
    pipelines: createPipelinesService({
      repo: repos.pipelines,
      transact,
      // What an active form uses stays: the forms repo answers, in the pipeline write's transaction.
      activeFormsUsing: (unit, orgId, pipelineId, stageIds) => unit.forms.activeFormsUsing(orgId, pipelineId, stageIds),
      clock,
      changes,
    }),
  });
  registerCrmRecordRoutes(app, {
    orgAuth,
    contacts: createContactsService({ repo: repos.contacts, customFields: repos.customFields, crm, orgs, clock }),
    opportunities: createOpportunitiesService({ repo: repos.opportunities, customFields: repos.customFields, crm, orgs, transact, clock }),
  });

  // ── Tool calls ──
  // One HTTP client for every call to a tool endpoint (pooled connections per origin); closed with the app.
  const toolHttp = createToolHttpClient({
    allowPrivate: config.toolAllowPrivateEndpoints,
    resolver: deps.resolveHost ?? systemResolver,
    ...(config.toolCaFile ? { caFile: config.toolCaFile } : {}),
    callTimeoutMs: config.toolCallTimeoutMs,
    userAgent: `Switchboard/${VERSION}`,
  });
  // A call is answered once its log row is committed (rows group-committed); the app's close waits for the last ones before the database closes.
  const callLog = createCallLog({ repo: repos.invocation, log: app.log, maxWaitMs: database.limits.acquireTimeoutMs });
  const keys = keyRing(config.secretsKey, config.secretsKeyPrevious);
  // Each agent's resolved tools (live revision, credentials opened), per node: installation writes drop the org's
  // entries, tool publish/withdrawal/deletion and org changes (an agent deleted) drop theirs, on every node through Redis.
  const toolCache = createToolCache({ clock, orgChanges: changes, toolChanges });
  await infra.attachCacheBus('tool-cache', toolCache);
  const installations = createInstallationsService({ repo: repos.invocation, transact, catalog, agents, clock, keys, cache: toolCache });
  const invoker = createInvoker({ installations, http: toolHttp, callLog, clock });
  registerInvocationRoutes(app, { orgAuth, installations, invoker, calls: createCallsService({ repo: repos.invocation }) });

  // A developer's view of their tools' calls: organizations only as HMAC references (key derived from SECRETS_KEY).
  const orgRefKey = createHmac('sha256', keys.current.key).update('switchboard/developer-org-reference').digest();
  registerDeveloperCallRoutes(app, {
    developerAuth,
    developerCalls: createDeveloperCallsService({ repo: repos.invocation, tools, orgRefKey, clock }),
    tester: createToolTester({ tools, http: toolHttp, callLog, clock, userAgent: `Switchboard/${VERSION}` }),
  });

  // ── MCP ── (the same invoker; an agent key speaks for one agent)
  const mcp = createMcpServerHandler({ installations, invoker, version: VERSION, log: app.log });
  registerMcpRoutes(app, { mcp, agentKeys, publicUrl: config.publicUrl });

  app.addHook('onClose', async () => {
    await mcp.close();
    await callLog.close();
    await toolHttp.close();
  });

  // ── Forms ──
  // Live forms, cached with their serialized config; an org's changes drop its entries, on every node with Redis.
  const cache = createFormCache<LiveForm>({ load: createLiveFormLoader({ repo: repos.forms, crm, orgs }), clock });
  changes.subscribe(cache.invalidateOrg);
  await infra.attachCacheBus('form-cache', cache);
  // Views are counted in memory and written in batches; the app's close writes the last ones before the database closes.
  const views = createFormViews({ repo: repos.forms, clock, log: app.log });
  app.addHook('onClose', () => views.stop());
  registerFormRoutes(app, { forms: createFormsService({ repo: repos.forms, transact, crm, orgs, cache, clock, publicUrl: config.publicUrl, views }), orgAuth });
  const submit = createSubmitService({
    transact: infra.submissions,
    repo: repos.forms,
    crm,
    cache,
    clock,
    ...(database.dialect === 'postgres' ? { newLeadAtOnce: (rows: NewLeadRows) => insertNewLeadAtOnce(db, rows) } : {}),
  });
  registerPublicFormRoutes(app, { cache, submit, limiter: infra.limiter, onView: views.record });
  // The hosted page /f/{slug} and the browser code it and form-embed.js users load (dist/web).
  const webAssets = deps.webAssets ?? createWebAssets();
  registerHostedPageRoutes(app, { cache, submit, limiter: infra.limiter, assets: webAssets, onView: views.record });
  registerAssetRoutes(app, { assets: webAssets });
  // The console (dist/web/console) under /app; / leads there.
  registerConsoleRoutes(app, { files: deps.consoleFiles ?? createConsoleFiles() });

  // ── Expired rows ──
  // Every table with an expiry, or it grows forever (the token endpoint writes a row per request).
  // Runs on every node; the app's close stops it before the database is closed.
  if (deps.expiryPurge !== false) {
    const purger = createExpiryPurger({ purges: [expiredAccessTokens(repos.oauth), expiredIdempotencyKeys(repos.forms), ...expiredAccountRows(repos.accounts)], clock, log: app.log, schedule: deps.expiryPurge ?? {} });
    purger.start();
    app.addHook('onClose', () => purger.stop());
  }

  return app;
}
