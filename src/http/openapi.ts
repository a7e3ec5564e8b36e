import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { documentRoute, hoistNamedSchemas } from './openapi-components.js';

/**
 * The OpenAPI 3.1 document is generated from the routes' TypeBox schemas, never written by hand.
 * Named schemas (schema-name.ts) are written once, in `components/schemas`, and referred to
 * with `$ref` everywhere else (openapi-components.ts).
 */
export async function registerOpenApi(app: FastifyInstance, config: { publicUrl: string }, version: string): Promise<void> {
  await app.register(swagger, {
    transform: ({ schema, url, route }) => documentRoute({ schema, url, route }) as { schema: FastifySchema; url: string },
    transformObject: (document) => ('openapiObject' in document ? hoistNamedSchemas(document.openapiObject as Record<string, unknown>) : document.swaggerObject),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version,
        description:
          'Tools for AI agents (Developer API, catalog) and lead-capture forms (public Forms API, Operator API). ' +
          'Successful responses are `{success: true, data}`; failures are `{success: false, error, code, requestId}`, except on the OAuth endpoints, which follow RFC 6749.',
        // Whoever runs this deployment (PUBLIC_URL); the service is not licensed to the public.
        contact: { name: 'Switchboard', url: config.publicUrl },
        license: { name: 'Proprietary' },
      },
      servers: [{ url: config.publicUrl }],
      tags: [
        { name: 'OAuth', description: 'Client credentials for the Developer API (RFC 6749, 7009, 8414).' },
        { name: 'Tools', description: 'Describe, update and publish your tools.' },
        { name: 'Apps', description: 'Your OAuth apps (client credentials for the Developer API), from a signed-in console session.' },
        { name: 'Catalog', description: 'Published tools, public.' },
        { name: 'Public forms', description: 'Form configuration and submissions; no authentication.' },
        { name: 'Chat widget', description: 'The chat widget\'s public side: what it draws, visitor sessions, messages answered as Server-Sent Events. Only from the chat\'s allowed origins; docs/chat-widget.md.' },
        { name: 'MCP', description: 'Agents\' tools over the Model Context Protocol, and the consent page that lets an MCP host use an agent.' },
        { name: 'Operator', description: 'Everything the operator panel does.' },
        { name: 'Accounts', description: 'Console accounts: sign-up, sign-in, sessions, password reset and invitations.' },
        { name: 'Health', description: 'Liveness and readiness.' },
      ],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials from an app registered in the developer portal.',
            flows: {
              clientCredentials: {
                tokenUrl: `${config.publicUrl}/api/dev/oauth/token`,
                scopes: {
                  'tools:read': 'List and read your tools.',
                  'tools:write': 'Create, update and delete your tools.',
                  'tools:publish': 'Publish and unpublish your tools.',
                },
              },
            },
          },
          orgApiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An organization API key (`svc_org_…`).',
          },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'svc_session',
            description: 'The console\'s session cookie (POST /api/auth/signin). Changes made with it also need X-CSRF-Token and a same-site Origin.',
          },
          chatSession: {
            type: 'http',
            scheme: 'bearer',
            description: 'A chat widget visitor\'s session (`chs_…`, POST /api/public/chats/{chat_id}/sessions), sent from one of the chat\'s allowed origins.',
          },
          clientSecretBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'An app\'s client_id and client_secret as HTTP Basic (RFC 6749 §2.3.1). Or, with no scheme, both in the form body (client_secret_post), or only client_id for an MCP host.',
          },
          agentKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An agent key (`svc_agt_…`, POST /api/org/agents/{id}/keys): the MCP endpoint, as that agent.',
          },
          mcpOAuth: {
            type: 'oauth2',
            description: 'An MCP host authorized by an operator on the consent page (PKCE, public client): the MCP endpoint, as the agent chosen there. Discovery: /.well-known/oauth-protected-resource/mcp.',
            flows: {
              authorizationCode: {
                authorizationUrl: `${config.publicUrl}/oauth/authorize`,
                tokenUrl: `${config.publicUrl}/api/dev/oauth/token`,
                refreshUrl: `${config.publicUrl}/api/dev/oauth/token`,
                scopes: { 'mcp:tools': 'List and call the tools of the agent chosen on the consent page.' },
              },
            },
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // Built (and cached) as the server starts: a schema name claimed twice or a repeated
  // operationId stops the start instead of breaking /openapi.json later.
  app.addHook('onReady', async () => {
    app.swagger();
  });
}
