import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { addJsonBodyParser } from '../http/json-body.js';
import type { OrgAuth } from './auth.js';

/** Operator API request bodies are small JSON documents. */
export const ORG_BODY_LIMIT = 64 * 1024;

/** Common schema parts of every Operator API route: tag and security scheme in the OpenAPI document. */
export const operatorRoute: { tags: string[]; security: Record<string, string[]>[] } = { tags: ['Operator'], security: [{ orgApiKey: [] }, { consoleSession: [] }] };

/**
 * Registers routes in a scope where every request is authenticated first (`orgAuth.require`
 * as onRequest, before the body is read) and bodies are JSON only.
 */
export function registerOperatorScope(app: App, orgAuth: OrgAuth, register: (scope: App, orgOf: (request: FastifyRequest) => string) => void): void {
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addHook('onRequest', orgAuth.require);
    // JSON only: a text/plain body is a 415, not a string that fails validation. Clients often
    // send Content-Type: application/json on bodiless actions (revoke, archive): that is allowed.
    scope.removeAllContentTypeParsers();
    addJsonBodyParser(scope, { allowEmpty: true });
    register(scope, (request) => orgAuth.principal(request).orgId);
  });
}
