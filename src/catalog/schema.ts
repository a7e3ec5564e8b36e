import { Type, type Static } from '@sinclair/typebox';
import { ListQuery } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { catalogToolNotFound } from './errors.js';
import { AUTH_TYPES, TOOL_CATEGORIES, TOOL_METHODS } from '../tools/definition.js';
import { StringEnum, ToolParameter } from '../tools/schema.js';

/**
 * A published tool as anyone sees it: the live revision's definition. The endpoint's
 * host is shown (businesses should know where their data goes) but not its path or
 * query, which some developers use to carry a secret.
 */
export const CatalogTool = named('CatalogTool', Type.Object({
  id: Type.String({ description: 'Tool id (`tool_…`); use it to enable the tool.' }),
  name: Type.String(),
  description: Type.String(),
  endpointHost: Type.String({ description: 'Host (and port, if not 443) the service calls.', examples: ['api.example.com'] }),
  method: StringEnum(TOOL_METHODS),
  authType: StringEnum(AUTH_TYPES, { description: 'Which credentials a business enters when it enables the tool.' }),
  apiKeyHeader: Type.Union([Type.String(), Type.Null()]),
  category: StringEnum(TOOL_CATEGORIES),
  parameters: Type.Array(ToolParameter),
  oauth: Type.Union([
    Type.Object({
      authorizationHost: Type.String({ description: 'Where a person signs in to connect an account (the provider\'s authorization URL\'s host).' }),
      scopes: Type.Array(Type.String(), { description: 'What the connection asks the provider for.' }),
    }),
    Type.Null(),
  ], { description: 'For `authType: oauth2`: the provider a business connects an account at; null otherwise.' }),
  version: Type.Integer({ minimum: 1, description: 'The published revision.' }),
  publishedAt: Type.String({ format: 'date-time' }),
  developer: Type.Object({ name: Type.String({ description: 'The developer\'s display name.' }) }),
}));
export type CatalogTool = Static<typeof CatalogTool>;

export const CatalogQuery = Type.Object(
  {
    category: Type.Optional(StringEnum(TOOL_CATEGORIES)),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive text searched in name and description.' })),
    ...ListQuery,
  },
  { additionalProperties: false },
);
export type CatalogQuery = Static<typeof CatalogQuery>;

export const CatalogToolParams = Type.Object({ tool_id: IdParam('tool', catalogToolNotFound, 'Tool id (`tool_…`).') });
