import type { Request } from 'express';

/** Where API tokens work: the admin API only (never `/proxy`, never `/api/auth`). */
export const ADMIN_API_PREFIX = '/api/admin/v1/';

/**
 * Whether a path is the admin API's, in any case: Express routes `/API/Admin/v1/…` to the same
 * handlers as `/api/admin/v1/…`, so what depends on the prefix must not depend on its case.
 */
export function isAdminApiPath(path: string): boolean {
  return (
    path.length >= ADMIN_API_PREFIX.length && path.slice(0, ADMIN_API_PREFIX.length).toLowerCase() === ADMIN_API_PREFIX
  );
}

/**
 * The credential of `Authorization: Bearer <token>` on the admin API; `undefined` when the request has
 * no such header or is not an admin API call; `null` for an `Authorization` header of another form.
 */
export function bearerCredential(request: Request): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined || !isAdminApiPath(request.path)) return undefined;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return match ? match[1] : null;
}
