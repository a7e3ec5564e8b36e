import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { App } from '../http/app-type.js';
import { Envelope, Page, errorResponses, ok } from '../http/envelope.js';
import { addJsonBodyParser } from '../http/json-body.js';
import type { AppsService } from './apps-service.js';
import type { AuditContext } from '../audit/context.js';
import { AppCreateBody, AppCredentials, AppIdParams, AppListQuery, AppRecord, AppUpdateBody, DeletedApp, SecretRotationBody } from './schema.js';

/** How a route knows the signed-in developer: the console session's guard (sessions/, built for issue 20). */
export interface DeveloperSessionGuard {
  /** onRequest: a developer's console session, with its X-CSRF-Token on changes; else 401 (none) or 403 (a bearer credential, no CSRF token, not a developer). */
  requireDeveloperSession: onRequestAsyncHookHandler;
  /** The developer id of a request the guard let through. */
  developerIdOf: (request: FastifyRequest) => string;
  /** Who and from where, for the audit log (a secret rotated). */
  auditContextOf: (request: FastifyRequest) => AuditContext;
}

const appsRoute = { tags: ['Apps'], security: [{ consoleSession: [] }] };

/** The bodies are a name and a few scopes. */
const APPS_BODY_LIMIT = 8 * 1024;

/** `/api/dev/apps…`: a developer's OAuth apps, from the console session only. */
export function registerDeveloperAppRoutes(app: App, deps: { apps: AppsService } & DeveloperSessionGuard): void {
  const { apps, requireDeveloperSession, developerIdOf, auditContextOf } = deps;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    // Rotation and delete may come without a body, yet with Content-Type: application/json.
    addJsonBodyParser(scope, { allowEmpty: true });
    // A developer's console session only: an Authorization header of any kind is refused (an app's token cannot make apps).
    scope.addHook('onRequest', requireDeveloperSession);

    scope.get('/api/dev/apps', {
      schema: {
        ...appsRoute,
        operationId: 'listApps',
        summary: 'List your apps',
        description: 'Your OAuth apps, newest first, with when each last got a token; never a secret. Page with `limit` and `cursor`. Console session only.',
        querystring: AppListQuery,
        response: { 200: Envelope(Page(AppRecord)), ...errorResponses(400, 401, 403) },
      },
    }, async (request) => ok(await apps.list(developerIdOf(request), request.query)));

    scope.post('/api/dev/apps', {
      bodyLimit: APPS_BODY_LIMIT,
      schema: {
        ...appsRoute,
        operationId: 'createApp',
        summary: 'Register an app',
        description:
          'Registers an app that may be granted `scopes` at the token endpoint. Answers 201 with its `clientId` and `clientSecret`: the secret is shown only now. ' +
          'Console session only (with X-CSRF-Token): an access token cannot make apps (403). 409 LIMIT_REACHED when you have as many apps as your limit allows (GET /api/dev/limits).',
        body: AppCreateBody,
        response: { 201: Envelope(AppCredentials), ...errorResponses(400, 401, 403, 409, 413, 415) },
      },
    }, async (request, reply) => reply.code(201).send(ok(await apps.create(developerIdOf(request), request.body))));

    scope.get('/api/dev/apps/:app_id', {
      schema: {
        ...appsRoute,
        operationId: 'getApp',
        summary: 'Get one of your apps',
        description: 'One of your apps. 404 APP_NOT_FOUND for an unknown id and for another developer\'s app.',
        params: AppIdParams,
        response: { 200: Envelope(AppRecord), ...errorResponses(400, 401, 403, 404) },
      },
    }, async (request) => ok(await apps.get(developerIdOf(request), request.params.app_id)));

    scope.patch('/api/dev/apps/:app_id', {
      bodyLimit: APPS_BODY_LIMIT,
      schema: {
        ...appsRoute,
        operationId: 'updateApp',
        summary: 'Rename an app or change its scopes',
        description:
          'Send `name` and/or `scopes`. Narrowing `scopes` revokes at once every access token of the app that holds a scope it loses; ' +
          'tokens within the new scopes keep working. Widening changes no existing token. 404 APP_NOT_FOUND.',
        params: AppIdParams,
        body: AppUpdateBody,
        response: { 200: Envelope(AppRecord), ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    }, async (request) => ok(await apps.update(developerIdOf(request), request.params.app_id, request.body)));

    scope.delete('/api/dev/apps/:app_id', {
      schema: {
        ...appsRoute,
        operationId: 'deleteApp',
        summary: 'Delete an app',
        description: 'Deletes the app and its access tokens at once: a token of the app is refused from the next request, and its secret gets no new one. 404 APP_NOT_FOUND.',
        params: AppIdParams,
        response: { 200: Envelope(DeletedApp), ...errorResponses(400, 401, 403, 404) },
      },
    }, async (request) => ok(await apps.remove(developerIdOf(request), request.params.app_id)));

    scope.post('/api/dev/apps/:app_id/secret', {
      bodyLimit: APPS_BODY_LIMIT,
      // No body, or an empty one, means `{}`: rotate with no grace.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        ...appsRoute,
        operationId: 'rotateAppSecret',
        summary: 'Rotate an app\'s client secret',
        description:
          'A new client secret, shown only now. Without `previousSecretExpiresIn` (or with 0) the old secret stops at once and the app\'s access tokens are revoked. ' +
          'With `previousSecretExpiresIn: n` (1–86400) the old secret still gets tokens strictly before now + n seconds (`previousSecretExpiresAt`), ' +
          'and tokens already issued live out their hour, so a deployment can roll without downtime. Only one previous secret is kept: rotating again ends its grace. ' +
          'The body may be empty. 404 APP_NOT_FOUND; 409 CONFLICT when another rotation ran at the same time.',
        params: AppIdParams,
        body: SecretRotationBody,
        response: { 200: Envelope(AppCredentials), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    }, async (request) => ok(await apps.rotateSecret(developerIdOf(request), request.params.app_id, request.body, auditContextOf(request))));
  });
}
