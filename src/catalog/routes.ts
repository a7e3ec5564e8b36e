import type { App } from '../http/app-type.js';
import { Envelope, Page, errorResponses, ok } from '../http/envelope.js';
import { CatalogQuery, CatalogTool, CatalogToolParams } from './schema.js';
import type { CatalogService } from './service.js';

const TAGS = ['Catalog'];

/** Public, no authentication: published tools only. */
export function registerCatalogRoutes(app: App, deps: { catalog: CatalogService }): void {
  const { catalog } = deps;

  app.get(
    '/api/catalog/tools',
    {
      schema: {
        tags: TAGS,
        security: [],
        operationId: 'listCatalogTools',
        summary: 'List published tools',
        description:
          'The published revision of every developer\'s published tools, newest first. Public: no authentication. ' +
          'Filter by `category` and `q` (text in name or description); page with `limit` and `cursor`. 400 VALIDATION_ERROR for a bad filter or cursor.',
        querystring: CatalogQuery,
        response: { 200: Envelope(Page(CatalogTool)), ...errorResponses(400) },
      },
    },
    async (request) => ok(await catalog.list(request.query)),
  );

  app.get(
    '/api/catalog/tools/:tool_id',
    {
      schema: {
        tags: TAGS,
        security: [],
        operationId: 'getCatalogTool',
        summary: 'Get a published tool',
        description: 'The published revision of one tool, with the endpoint\'s host but not its path. Public: no authentication. A draft, withdrawn or deleted tool answers 404 TOOL_NOT_FOUND.',
        params: CatalogToolParams,
        response: { 200: Envelope(CatalogTool), ...errorResponses(400, 404) },
      },
    },
    async (request) => ok(await catalog.get(request.params.tool_id)),
  );
}
