import type { DestinationStream } from 'pino';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { systemClock, type Clock } from './lib/clock.js';
import { newId } from './lib/ids.js';
import { frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { clientErrorHandler } from './http/client-error.js';
import type { App } from './http/app-type.js';
import { installJsonBodyParser } from './http/json-body.js';
import { registerHealthRoutes } from './http/health.js';
import { registerOpenApi } from './http/openapi.js';
import { createValidatorCompiler } from './http/validation.js';
import { createSerializerCompiler } from './http/serialization.js';
import { logSerializers, redactPaths } from './http/redact.js';
import { lazyChildLoggerFactory } from './http/request-logger.js';
import { VERSION } from './version.js';
import { createDeveloperAuth } from './oauth/bearer.js';
import { createOAuthRepo } from './oauth/repo.js';
import { registerOAuthRoutes } from './oauth/routes.js';
import { createOAuthService } from './oauth/service.js';
import { systemResolver, type HostResolver } from './net/resolver.js';
import { createToolsRepo } from './tools/repo.js';
import { registerToolRoutes } from './tools/routes.js';
import { createToolsService } from './tools/service.js';
import { createCatalogRepo } from './catalog/repo.js';
import { registerCatalogRoutes } from './catalog/routes.js';
import { createCatalogService } from './catalog/service.js';
import { createOrgAuth } from './orgs/auth.js';
import { createCrmService } from './crm/service.js';
import { registerForms } from './forms/module.js';
import { createOrgsRepo } from './orgs/repo.js';
import { createAgentsService } from './orgs/agents-service.js';
import { createApiKeysService } from './orgs/api-keys-service.js';
import { createOrgChangeFeed } from './orgs/changes.js';
import { registerOrgRoutes } from './orgs/routes.js';
import { createContactsService } from './crm/contacts-service.js';
import { createCustomFieldsService } from './crm/custom-fields-service.js';
import { createOpportunitiesService } from './crm/opportunities-service.js';
import { createPipelinesService } from './crm/pipelines-service.js';
import { registerCrmRecordRoutes } from './crm/records-routes.js';
import { registerCrmSettingsRoutes } from './crm/settings-routes.js';

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
}

/** Builds the HTTP application: the composition root where services get their dependencies. */
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
    childLoggerFactory: lazyChildLoggerFactory,
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
  // Connections past the cap are closed as they arrive, before any byte is read.
  app.server.maxConnections = limits.maxConnections;

  app.setValidatorCompiler(createValidatorCompiler());
  app.setSerializerCompiler(createSerializerCompiler());
  installJsonBodyParser(app);
  // A synchronous hook: it runs on every request, and an async one costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  installErrorHandling(app);
  await registerOpenApi(app, config, VERSION);
  registerHealthRoutes(app, database);

  const { db } = database;
  const oauth = createOAuthService({ repo: createOAuthRepo(db), clock });
  const developerAuth = createDeveloperAuth(oauth);
  registerOAuthRoutes(app, { oauth, config });

  // ── Tools and catalog ──
  const endpointPolicy = { allowPrivate: config.toolAllowPrivateEndpoints, resolver: deps.resolveHost ?? systemResolver };
  const tools = createToolsService({ repo: createToolsRepo(db), clock, endpointPolicy });
  registerToolRoutes(app, { tools, developerAuth });
  registerCatalogRoutes(app, { catalog: createCatalogService({ repo: createCatalogRepo(db) }) });

  // ── Organizations and CRM ──
  // orgAuth.require guards every /api/org/* route; orgAuth.principal(request) → {orgId, actor}.
  const orgAuth = createOrgAuth({ repo: createOrgsRepo(db), clock });
  // Fires after an agent's brand, a custom field or a pipeline changes: caches of public form configs subscribe.
  const orgChanges = createOrgChangeFeed();
  registerOrgRoutes(app, {
    orgAuth,
    apiKeys: createApiKeysService({ db, clock }),
    agents: createAgentsService({ db, clock, changes: orgChanges }),
  });
  registerCrmSettingsRoutes(app, {
    orgAuth,
    customFields: createCustomFieldsService({ db, clock, changes: orgChanges }),
    pipelines: createPipelinesService({ db, clock, changes: orgChanges }),
  });
  registerCrmRecordRoutes(app, { orgAuth, contacts: createContactsService({ db, clock }), opportunities: createOpportunitiesService({ db, clock }) });

  // ── Forms ──
  await registerForms(app, { config, database, clock, crm: createCrmService({ clock }), orgAuth, changes: orgChanges, redisPrefix: deps.redisPrefix });

  return app;
}
