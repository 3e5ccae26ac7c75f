import type { INestApplication } from '@nestjs/common';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, type OperationObject, SwaggerModule } from '@nestjs/swagger';
import type { AdminRole } from '@arrbiter/contracts';
import { IS_PUBLIC, MIN_ROLE, SESSION_ONLY } from '@arrbiter/server/access';
import { ADMIN_API_PREFIX, SESSION_COOKIE } from '@arrbiter/server/auth';
import { describeValidatedClasses } from './validation-schemas';

/** The admin API's path families (design.md §4): what the description covers. */
export const ADMIN_API_PATH = /^\/api\/(admin\/v1|auth)(\/|$)/;

const SECURITY_SCHEME = 'session';
const TOKEN_SCHEME = 'token';
const WRITES = new Set(['post', 'put', 'patch', 'delete']);
/** What a success answers, where the operation does not say (`@nestjs/swagger` leaves it empty). */
const SUCCESS: Record<string, string> = {
  '200': 'OK (JSON)',
  '201': 'Created: the new object (JSON)',
  '204': 'Done; no body',
};
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const DESCRIPTION = `The administration API of Arrbiter, as the dashboard uses it. Not a stable contract
(the routes may change between versions). Signed in through \`POST /api/auth/sign-in\`, which sets the
session cookie; every write (POST, PUT, PATCH, DELETE) must also carry an \`Origin\` (or \`Referer\`) of
\`PUBLIC_URL\` or \`ALLOWED_ORIGINS\`. Scripts use an API token instead (\`Authorization: Bearer arb_…\`,
\`/api/admin/v1/*\` only, no \`Origin\` needed). Each operation names the least role that may call it
(\`x-arrbiter-role\`: owner, editor or viewer; a token's role is at most its creator's). Bodies are JSON; unknown fields are refused (400, naming the
field and the reason). Lists that can grow take \`?limit=&cursor=\` and answer \`{items, nextCursor}\`.
Request bodies and query parameters are described from the server's own validation; the response shapes
are the types of \`libs/contracts\`. The proxy route (\`/proxy/{appSlug}/…\`, authenticated by proxy keys)
and \`/health\` are not part of this API.`;

/**
 * The admin API's OpenAPI 3 description, generated from the application's controllers and DTOs
 * (`@nestjs/swagger`; DTOs described from their class-validator decorators, see
 * `describeValidatedClasses`). Only `/api/admin/v1/*` and `/api/auth/*`: the proxy route is not a Nest
 * route, `/health` is for probes and the description's own routes are not the API. Routes open without a
 * session say so (`security: []`); the others name the session cookie and the refusals every one of
 * them can answer.
 */
export function describeAdminApi(app: INestApplication, version: string): OpenAPIObject {
  describeValidatedClasses();
  const config = new DocumentBuilder()
    .setTitle('Arrbiter admin API')
    .setDescription(DESCRIPTION)
    .setVersion(version)
    .addCookieAuth(
      SESSION_COOKIE,
      { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /api/auth/sign-in' },
      SECURITY_SCHEME,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'An API token (arb_…) from POST /api/admin/v1/tokens' },
      TOKEN_SCHEME,
    )
    .addSecurityRequirements(SECURITY_SCHEME)
    .addSecurityRequirements(TOKEN_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const access = operationAccess(app);
  const paths: OpenAPIObject['paths'] = {};
  for (const [path, item] of Object.entries(document.paths)) {
    if (!ADMIN_API_PATH.test(path)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      describeAccess(operation, method, path, access.get(operation.operationId ?? ''));
      // Grouped by what they act on (`/api/admin/v1/apps/{id}/clone` is with the apps), not by controller.
      operation.tags = [resourceOf(path)];
    }
    paths[path] = item;
  }
  return { ...document, paths };
}

/** `apps` for `/api/admin/v1/apps/…`, `settings` for `/api/admin/v1/settings/…`, `auth` for `/api/auth/…`. */
function resourceOf(path: string): string {
  const match = /^\/api\/(?:admin\/v1\/([^/]+)|(auth))/.exec(path);
  return match?.[1] ?? match?.[2] ?? 'other';
}

/** Who may call an operation: read from the handler's access metadata (`@arrbiter/server/access`). */
interface OperationAccess {
  isPublic: boolean;
  minRole: AdminRole | undefined;
  sessionOnly: boolean;
}

/** Each handler's access, by operation id (`Controller_method`, `@nestjs/swagger`'s). */
function operationAccess(app: INestApplication): Map<string, OperationAccess> {
  const reflector = new Reflector();
  const access = new Map<string, OperationAccess>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        access.set(`${metatype.name}_${name}`, {
          isPublic: reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [handler, metatype]) === true,
          minRole: reflector.get<AdminRole | undefined>(MIN_ROLE, handler),
          sessionOnly: reflector.get<boolean | undefined>(SESSION_ONLY, handler) === true,
        });
      }
    }
  }
  return access;
}

/** The credentials, the least role and the refusals of an operation. */
function describeAccess(
  operation: OperationObject & { 'x-arrbiter-role'?: AdminRole },
  method: string,
  path: string,
  access: OperationAccess | undefined,
): void {
  const isPublic = access?.isPublic ?? false;
  if (!isPublic && (access?.sessionOnly || !path.startsWith(ADMIN_API_PREFIX))) {
    // API tokens work on /api/admin/v1/* only, and never manage accounts or tokens.
    operation.security = [{ [SECURITY_SCHEME]: [] }];
  }
  if (!isPublic && access?.minRole) {
    operation['x-arrbiter-role'] = access.minRole;
    if (access.minRole !== 'viewer') operation.responses['403'] ??= { description: `Needs the ${access.minRole} role` };
  }
  describeRefusals(operation, method, path, isPublic);
}

/**
 * What a success means where nothing says so, and the answers every admin route can give besides its
 * own, added where the operation names none.
 */
function describeRefusals(operation: OperationObject, method: string, path: string, isPublic: boolean): void {
  const responses = operation.responses;
  for (const [status, response] of Object.entries(responses))
    if (response && 'description' in response && !response.description)
      response.description = SUCCESS[status] ?? status;
  if (isPublic) operation.security = [];
  else responses['401'] ??= { description: 'No valid session: sign in first' };
  if (WRITES.has(method)) {
    const role =
      responses['403'] && 'description' in responses['403'] ? `; or ${responses['403'].description.toLowerCase()}` : '';
    responses['403'] = { description: `The Origin (or Referer) is not the dashboard’s${role}` };
  }
  if (operation.requestBody || (operation.parameters?.length ?? 0) > 0)
    responses['400'] ??= { description: 'Bad input: the body of the answer names each field and the reason' };
  if (/\{[A-Za-z]*[iI]d\}/.test(path)) responses['404'] ??= { description: 'No such object' };
}
