import { escapeHtml } from '../lib/html.js';
import { CREDENTIAL_FIELDS, TOOL_CATEGORIES, type AuthType, type ToolCategory, type ToolParameter } from '../tools/definition.js';
import type { CatalogTool } from './schema.js';

/**
 * The HTML of the public catalog pages `/catalog` and `/catalog/{tool_id}` (routes: pages.ts): plain
 * server-rendered documents, no script at all. Every string of a developer's (name, description,
 * parameters, display name) and of the visitor's (the search) goes through escapeHtml. The one inline
 * `<style>` is the same bytes on every page, so the CSP allows it by one SHA-256.
 */

/** The search box's limit, the API's (`q` in schema.ts). */
export const MAX_QUERY_LENGTH = 100;

export const CATEGORY_LABELS: Record<ToolCategory, string> = {
  crm: 'CRM',
  sales: 'Sales',
  marketing: 'Marketing',
  support: 'Customer support',
  scheduling: 'Scheduling',
  ecommerce: 'E-commerce',
  payments: 'Payments',
  finance: 'Finance',
  communication: 'Communication',
  productivity: 'Productivity',
  data: 'Data',
  developer: 'Developer tools',
  other: 'Other',
};

/** The credentials a business enters when it enables the tool, in a few words (the list). */
const AUTH_SHORT: Record<AuthType, string> = {
  none: 'No credentials',
  api_key: 'API key',
  bearer: 'Bearer token',
  basic: 'Username and password',
  hmac: 'Signing secret',
  oauth2: 'Connect an account',
};

/** The same, said fully (the tool's page). */
function authInWords(tool: Pick<CatalogTool, 'authType' | 'apiKeyHeader' | 'oauth'>): string {
  switch (tool.authType) {
    case 'none':
      return 'None: the tool needs no credentials from you.';
    case 'api_key':
      return `An API key from the tool's vendor, which Switchboard sends in the ${tool.apiKeyHeader ?? 'X-API-Key'} header of every call.`;
    case 'bearer':
      return "A bearer token from the tool's vendor, which Switchboard sends in the Authorization header of every call.";
    case 'basic':
      return "A username and password from the tool's vendor, which Switchboard sends as HTTP Basic authentication.";
    case 'hmac':
      return "A signing secret shared with the tool's vendor: Switchboard signs every call with it (HMAC-SHA256), so the tool knows the call is yours.";
    case 'oauth2':
      return `An account at ${tool.oauth?.authorizationHost ?? "the tool's vendor"}: a person in your team signs in there and approves${tool.oauth?.scopes.length ? ` (${tool.oauth.scopes.join(', ')})` : ''}; Switchboard keeps the connection alive and sends its access token with every call.`;
  }
}

/** The page's one stylesheet: readable, AA contrast (text #1b1f24 and links #0b4fc4 on white), a visible focus ring. */
export const CATALOG_STYLE = [
  ':root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1b1f24;background:#fff}',
  'body{margin:0}a{color:#0b4fc4}a:hover{color:#083a91}',
  ':focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}main:focus{outline:none}',
  '.skip{position:absolute;left:.5rem;top:-3rem;padding:.5rem 1rem;background:#fff;border:2px solid #0b4fc4}.skip:focus{top:.5rem}',
  'header,footer{padding:.75rem 1rem;border-bottom:1px solid #d0d7de}footer{border-top:1px solid #d0d7de;border-bottom:0;color:#4a5360}',
  'header a{font-weight:700;color:#1b1f24;text-decoration:none}',
  'main{max-width:56rem;margin:0 auto;padding:1.5rem 1rem}h1{margin-top:0}',
  'form{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-end;margin-bottom:1.5rem}form div{display:flex;flex-direction:column;gap:.25rem}',
  'input,select,button{font:inherit;min-height:2.5rem;padding:.4rem .6rem;border:1px solid #6b7480;border-radius:6px;background:#fff;color:#1b1f24}',
  'input{width:min(20rem,80vw)}button{background:#0b4fc4;color:#fff;border-color:#0b4fc4;cursor:pointer}',
  '.tools{list-style:none;padding:0;margin:0}.tools li{border:1px solid #d0d7de;border-radius:8px;padding:1rem;margin-bottom:1rem}',
  '.tools h3{margin:0 0 .25rem}p,dd,td{overflow-wrap:anywhere}',
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0}dt{font-weight:600}dd{margin:0}',
  'table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.4rem .6rem;border-bottom:1px solid #d0d7de}',
  'caption{text-align:left;font-weight:600;padding:.4rem 0}.table{overflow-x:auto}',
  'pre{background:#f3f5f7;padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}',
  '.muted{color:#4a5360}',
].join('\n');

const e = escapeHtml;

function document(title: string, main: string): string {
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="strict-origin-when-cross-origin">' +
    `<title>${e(title)} · Switchboard tool catalog</title><style>${CATALOG_STYLE}</style></head>` +
    '<body><a class="skip" href="#main">Skip to content</a>' +
    '<header><a href="/catalog">Switchboard tool catalog</a></header>' +
    `<main id="main" tabindex="-1">${main}</main>` +
    '<footer><p>Tools published by developers for the AI agents of businesses on Switchboard. ' +
    'Run a business? <a href="/app/signup">Create an account</a> to enable them. Build tools? Read the <a href="/docs">API reference</a>.</p></footer>' +
    '</body></html>\n'
  );
}

export interface CatalogSearch {
  q?: string | undefined;
  category?: ToolCategory | undefined;
}

/** `/catalog` with these filters (and cursor), as a link. */
export function catalogHref(search: CatalogSearch, cursor?: string): string {
  const params = new URLSearchParams();
  if (search.q) params.set('q', search.q);
  if (search.category) params.set('category', search.category);
  if (cursor) params.set('cursor', cursor);
  const query = params.toString();
  return query ? `/catalog?${query}` : '/catalog';
}

function searchForm(search: CatalogSearch): string {
  const options = ['<option value="">All categories</option>']
    .concat(TOOL_CATEGORIES.map((category) => `<option value="${category}"${search.category === category ? ' selected' : ''}>${e(CATEGORY_LABELS[category])}</option>`))
    .join('');
  return (
    '<form method="get" action="/catalog" role="search" aria-label="Search the catalog">' +
    `<div><label for="q">Search names and descriptions</label><input type="search" id="q" name="q" maxlength="${MAX_QUERY_LENGTH}" value="${e(search.q ?? '')}"></div>` +
    `<div><label for="category">Category</label><select id="category" name="category">${options}</select></div>` +
    '<div><button type="submit">Search</button></div></form>'
  );
}

function facts(rows: Array<[string, string]>): string {
  return `<dl>${rows.map(([term, html]) => `<dt>${term}</dt><dd>${html}</dd>`).join('')}</dl>`;
}

function toolItem(tool: CatalogTool): string {
  return (
    `<li><h3><a href="/catalog/${encodeURIComponent(tool.id)}">${e(tool.name)}</a></h3><p>${e(tool.description)}</p>` +
    facts([
      ['Category', e(CATEGORY_LABELS[tool.category])],
      ['Developer', e(tool.developer.name)],
      ['Credentials', e(AUTH_SHORT[tool.authType])],
      ['Calls', e(tool.endpointHost)],
    ]) +
    '</li>'
  );
}

function emptyMessage(search: CatalogSearch): string {
  if (!search.q && !search.category) {
    return '<p>No tool is published yet. Developers publish tools with the Developer API; come back soon.</p>';
  }
  const what = [search.q ? `matching “${e(search.q)}”` : '', search.category ? `in ${e(CATEGORY_LABELS[search.category])}` : ''].filter(Boolean).join(' ');
  return (
    `<p>No published tool ${what}.</p>` +
    `<p>Try other or fewer words, choose “All categories”, or <a href="/catalog">see every tool</a>.</p>`
  );
}

/** `/catalog`: the search form, one page of results, and the link to the next. */
export function renderCatalogPage(search: CatalogSearch, page: { items: CatalogTool[]; nextCursor: string | null }, afterFirstPage: boolean): string {
  const filtered = [search.q ? `“${search.q}”` : '', search.category ? CATEGORY_LABELS[search.category] : ''].filter(Boolean).join(' in ');
  const title = filtered ? `Tools: ${filtered}` : 'All tools';
  const count = page.items.length === 1 ? '1 tool' : `${page.items.length} tools`;
  const results = page.items.length
    ? `<p class="muted">${afterFirstPage ? `${count} more` : page.nextCursor ? `The first ${count}` : count}, newest first.</p><ul class="tools">${page.items.map(toolItem).join('')}</ul>`
    : emptyMessage(search);
  const next = page.nextCursor ? `<nav aria-label="More results"><p><a href="${e(catalogHref(search, page.nextCursor))}" rel="next">Next page</a></p></nav>` : '';
  const main =
    '<h1>Tool catalog</h1><p>Tools your AI agents can call: find one, read what it does and what it needs, then enable it in your console.</p>' +
    searchForm(search) +
    `<section aria-labelledby="results"><h2 id="results">${e(filtered ? `Results for ${filtered}` : 'All published tools')}</h2>${results}${next}</section>`;
  return document(afterFirstPage ? `${title} (more)` : title, main);
}

function typeInWords(parameter: ToolParameter): string {
  return parameter.type === 'array' ? `array of ${parameter.items ?? 'any'}` : parameter.type;
}

function parametersTable(parameters: ToolParameter[]): string {
  if (!parameters.length) return '<p>This tool takes no parameters.</p>';
  const rows = parameters
    .map(
      (p) =>
        `<tr><th scope="row"><code>${e(p.name)}</code></th><td>${e(typeInWords(p))}</td><td>${p.required ? 'Yes' : 'No'}</td>` +
        `<td>${p.description ? e(p.description) : '<span class="muted">No description</span>'}</td></tr>`,
    )
    .join('');
  return (
    // The table scrolls sideways on a narrow screen: a region that takes focus, so a keyboard can scroll it.
    '<div class="table" role="region" aria-labelledby="params" tabindex="0"><table><caption id="params">What an agent sends when it calls the tool</caption>' +
    '<thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead>' +
    `<tbody>${rows}</tbody></table></div>`
  );
}

const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });

/** The Operator API call that enables the tool, with the credentials its auth type takes. */
function enableCall(tool: CatalogTool, publicUrl: string): string {
  const credentials = CREDENTIAL_FIELDS[tool.authType];
  const body = { toolId: tool.id, ...(credentials.length ? { credentials: Object.fromEntries(credentials.map((name) => [name, '…'])) } : {}) };
  return (
    `curl -X POST ${publicUrl.replace(/\/$/, '')}/api/org/installations \\\n` +
    '  -H "Authorization: Bearer $ORG_API_KEY" -H "Content-Type: application/json" \\\n' +
    `  -d '${JSON.stringify(body)}'`
  );
}

/** `/catalog/{tool_id}`: everything a business needs to decide, and how to enable the tool. */
export function renderToolPage(tool: CatalogTool, publicUrl: string): string {
  const published = new Date(tool.publishedAt);
  const consoleHref = `/app/tools/catalog?${new URLSearchParams({ q: tool.name }).toString()}`;
  const main =
    '<nav aria-label="Breadcrumb"><p><a href="/catalog">All tools</a></p></nav>' +
    `<h1>${e(tool.name)}</h1><p>${e(tool.description)}</p>` +
    facts([
      ['Category', `<a href="${e(catalogHref({ category: tool.category }))}">${e(CATEGORY_LABELS[tool.category])}</a>`],
      ['Developer', e(tool.developer.name)],
      ['Endpoint', `${e(tool.method)} to <code>${e(tool.endpointHost)}</code> (HTTPS)`],
      ['Credentials you enter', e(authInWords(tool))],
      ['Version', String(tool.version)],
      ['Published', `<time datetime="${e(tool.publishedAt)}">${e(DATE.format(published))}</time>`],
    ]) +
    '<h2>Parameters</h2>' +
    parametersTable(tool.parameters) +
    '<h2>Enable it for your agents</h2>' +
    '<ol>' +
    `<li><p>In the console: sign in, open <strong>Tools</strong>, then the catalog (<a href="${e(consoleHref)}">Tools › Add a tool</a>), find <strong>${e(tool.name)}</strong> and choose <strong>Enable</strong>.</p></li>` +
    `<li><p>Or with the Operator API, using your organization's API key:</p><pre><code>${e(enableCall(tool, publicUrl))}</code></pre></li>` +
    '</ol>';
  return document(tool.name, main);
}

/** An error page: what went wrong, and the way back. */
export function renderErrorPage(heading: string, message: string): string {
  return document(heading, `<h1>${e(heading)}</h1><p>${e(message)}</p><p><a href="/catalog">Back to the tool catalog</a></p>`);
}
