/**
 * Compile-time only (imported by nothing, so never bundled): each fetcher of the CRM and tools pages
 * answers with the type the OpenAPI document gives its path. A fetcher that asks a path for the wrong
 * shape, or a schema that changes under it, fails `npm run typecheck` here rather than in a browser.
 */
import type { paths } from './schema';
import * as crm from '../pages/crm/api';
import * as tools from '../pages/tools/api';

type Json<R> = R extends { content: { 'application/json': { data: infer D } } } ? D : never;
/** The `data` of a path's 200 (or 201) answer. */
type Data<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer OK } ? Json<OK> : R extends { 201: infer Created } ? Json<Created> : never
  : never;
type Items<P extends keyof paths> = Data<P, 'get'> extends { items: (infer I)[] } ? I[] : never;
type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;
/** The server's answer can be read as the console's type, and the console's type asks for nothing more. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;

export type _Checks = [
  Assert<Same<Answer<typeof tools.fetchCatalog>, Data<'/api/catalog/tools', 'get'>>>,
  Assert<Same<Answer<typeof tools.fetchCatalogTool>, Data<'/api/catalog/tools/{tool_id}', 'get'>>>,
  Assert<Same<Answer<typeof tools.fetchInstallation>, Data<'/api/org/installations/{id}', 'get'>>>,
  Assert<Same<Answer<typeof tools.fetchInstallations>, Items<'/api/org/installations'>>>,
  Assert<Same<Answer<typeof tools.fetchCalls>, Data<'/api/org/tool-calls', 'get'>>>,
  Assert<Same<Answer<typeof tools.fetchAgentKeys>, Items<'/api/org/agents/{id}/keys'>>>,
  Assert<Same<Answer<typeof tools.callTool>, Data<'/api/org/agents/{id}/tool-calls', 'post'>>>,
  // Asked with format=mcp: the answer is the MCP member of the document's union.
  Assert<Answer<typeof tools.fetchAgentTools> extends Data<'/api/org/agents/{id}/tools', 'get'> ? true : false>,
  Assert<Same<Answer<typeof crm.fetchContacts>, Data<'/api/org/contacts', 'get'>>>,
  Assert<Same<Answer<typeof crm.fetchContact>, Data<'/api/org/contacts/{id}', 'get'>>>,
  Assert<Same<Answer<typeof crm.fetchPipelines>, Items<'/api/org/pipelines'>>>,
  Assert<Same<Answer<typeof crm.fetchPipeline>, Data<'/api/org/pipelines/{id}', 'get'>>>,
  Assert<Same<Answer<typeof crm.fetchOpportunities>, Items<'/api/org/opportunities'>>>,
  Assert<Same<Answer<typeof crm.fetchForms>, Items<'/api/org/forms'>>>,
  Assert<Same<Answer<typeof crm.fetchCustomFields>, Items<'/api/org/custom-fields'>>>,
];
