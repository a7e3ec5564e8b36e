import type { App } from '../http/app-type.js';
import type { ErrorPageRenderer, RouteErrorConfig } from '../http/error-handler.js';
import { AppError } from '../http/errors.js';
import { sendHtmlPage, styleHash } from '../http/html-page.js';
import { etagOf } from '../http/in-memory.js';
import { isWellFormedId } from '../lib/ids.js';
import { charLength, textProblem, toNfc } from '../lib/text.js';
import { TOOL_CATEGORIES, type ToolCategory } from '../tools/definition.js';
import { CATALOG_STYLE, CATEGORY_LABELS, MAX_QUERY_LENGTH, renderCatalogPage, renderErrorPage, renderToolPage, type CatalogSearch } from './pages-html.js';
import type { CatalogService } from './service.js';

/**
 * The public catalog as pages: `GET /catalog` (search, categories, a page at a time) and
 * `GET /catalog/{tool_id}`, for businesses deciding what to enable, linkable and readable without
 * signing in or running any script. Read through the catalog service, like `/api/catalog/tools`.
 *
 * Every answer is rendered from the database: `Cache-Control: no-cache` with an ETag of the bytes,
 * so a browser revalidates each time (a 304 when nothing changed) and a withdrawn tool is gone on
 * the next load. Failures are pages too (never JSON, never a 500 for bad input): 400 for a search
 * that cannot be run, 404 for a tool that is not published.
 */

/** No script at all; the one inline style by its hash; forms post (GET) only to us; never framed. */
const CSP = [
  "default-src 'none'",
  `style-src ${styleHash(CATALOG_STYLE)}`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const CATEGORIES = new Set<string>(TOOL_CATEGORIES);

function badRequest(message: string, field: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { field });
}

/** A query value as one string: a repeated parameter is refused, not silently picked. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`Give “${name}” once.`, name);
  return value;
}

/** The search from the address; an empty box or “All categories” (the form sends `q=&category=`) means no filter. */
export function readSearch(query: Record<string, unknown>): CatalogSearch & { cursor?: string | undefined } {
  const typed = single(query, 'q');
  // The API's text rule (http/wire-text.ts), which these routes without a schema apply themselves: PostgreSQL refuses a NUL.
  const problem = typed === undefined ? undefined : textProblem(typed, 'line');
  if (problem) throw badRequest(`The search ${problem}.`, 'q');
  const q = typed === undefined ? undefined : toNfc(typed.trim()) || undefined;
  const category = single(query, 'category') || undefined;
  const cursor = single(query, 'cursor') || undefined;
  if (q !== undefined && charLength(q) > MAX_QUERY_LENGTH) throw badRequest(`The search is too long: use at most ${MAX_QUERY_LENGTH} characters.`, 'q');
  if (category !== undefined && !CATEGORIES.has(category)) {
    throw badRequest(`There is no category “${category}”. Choose one of: ${TOOL_CATEGORIES.map((c) => CATEGORY_LABELS[c]).join(', ')}.`, 'category');
  }
  return { q, category: category as ToolCategory | undefined, cursor };
}

function heading(status: number): string {
  if (status === 404) return 'Tool not found';
  if (status === 400) return 'That search could not be run';
  if (status === 503) return 'The catalog is unavailable';
  return 'Something went wrong';
}

const errorPage: ErrorPageRenderer = (request, reply, { status, error }) => {
  const message =
    error?.code === 'TOOL_NOT_FOUND'
      ? 'No published tool has that id. Its developer may have withdrawn it, or the link may be mistyped.'
      : error && status < 500
        ? error.message
        : status === 503
          ? 'The catalog cannot be read right now. Try again in a moment.'
          : status < 500
            ? 'The request could not be read.'
            : 'Something went wrong on our side. Please try again in a moment.';
  const html = Buffer.from(renderErrorPage(heading(status), message));
  return sendHtmlPage(request, reply, { status, html, csp: CSP }, 'no-store');
};

export function registerCatalogPages(app: App, deps: { catalog: CatalogService; publicUrl: string }): void {
  const { catalog, publicUrl } = deps;
  const config: RouteErrorConfig = { errorFormat: 'html', errorPage };

  app.get('/catalog', { config, schema: { hide: true } }, async (request, reply) => {
    const search = readSearch((request.query ?? {}) as Record<string, unknown>);
    const page = await catalog.list({ q: search.q, category: search.category, cursor: search.cursor });
    const html = Buffer.from(renderCatalogPage(search, page, search.cursor !== undefined));
    return sendHtmlPage(request, reply, { status: 200, html, csp: CSP, etag: etagOf(html) }, 'no-cache');
  });

  app.get('/catalog/:tool_id', { config, schema: { hide: true } }, async (request, reply) => {
    const { tool_id: toolId } = request.params as { tool_id: string };
    if (!isWellFormedId('tool', toolId)) throw badRequest('That is not a tool id: tool ids look like tool_3kTMd92nqLx0aPz8Vb1c. Find the tool in the catalog.', 'tool_id');
    const tool = await catalog.get(toolId);
    const html = Buffer.from(renderToolPage(tool, publicUrl));
    return sendHtmlPage(request, reply, { status: 200, html, csp: CSP, etag: etagOf(html) }, 'no-cache');
  });
}
