import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { addJsonBodyParser } from '../http/json-body.js';
import type { DeveloperLimit, TenantLimits } from '../http/tenant-limits.js';
import type { DeveloperAuth } from '../oauth/bearer.js';
import { DeveloperLimits } from './schema.js';

/** `GET /api/dev/limits`: a developer's limits (apps, tools) and their use, for a token with tools:read or the console session. */
export function registerDeveloperLimitRoutes(app: App, deps: { limits: Pick<TenantLimits<DeveloperLimit>, 'show'>; developerAuth: DeveloperAuth }): void {
  const { limits, developerAuth: auth } = deps;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    addJsonBodyParser(scope, { allowEmpty: true });
    // The route's `security` states its scope once: for the OpenAPI document and as its bearer check.
    scope.addHook('onRoute', auth.requireDeclaredScope);

    scope.get('/api/dev/limits', {
      schema: {
        tags: ['Tools'],
        operationId: 'getDeveloperLimits',
        summary: 'Get your limits',
        description:
          'The most apps and tools your developer account may have at once, and how many it has. A create past a limit is refused with 409 LIMIT_REACHED; ' +
          'your Switchboard operator can raise it (docs/developer-api.md, Limits). Needs an access token with the `tools:read` scope, or the console session.',
        security: [{ oauth2: ['tools:read'] }],
        response: { 200: Envelope(DeveloperLimits), ...errorResponses(401, 403) },
      },
    }, async (request) => ok(await limits.show(auth.principal(request).developerId)));
  });
}
