import type { Request } from 'express';

/** Where API tokens work: the admin API only (never `/proxy`, never `/api/auth`). */
export const ADMIN_API_PREFIX = '/api/admin/v1/';

/**
 * The credential of `Authorization: Bearer <token>` on the admin API; `undefined` when the request has
 * no such header or is not an admin API call; `null` for an `Authorization` header of another form.
 */
export function bearerCredential(request: Request): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined || !request.path.startsWith(ADMIN_API_PREFIX)) return undefined;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return match ? match[1] : null;
}
