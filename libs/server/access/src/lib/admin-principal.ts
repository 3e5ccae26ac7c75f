import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AdminRole } from '@arrbiter/contracts';
import type { Request } from 'express';

/** How the caller proved who they are. */
export type Credential = 'session' | 'token' | 'forward-auth';

/** The administrator of a request, however they signed in. */
export interface AdminPrincipal {
  /** The account's id (for a token: its creator's). */
  id: string;
  username: string;
  /** What this request may do: the account's role, or a token's (never above its creator's). */
  role: AdminRole;
  credential: Credential;
  /** The session's digest (credential `session`). */
  sessionId?: string;
  /** The token's id (credential `token`). */
  tokenId?: string;
  /** Who recent changes name: the username, or `token:<name>` for an API token. */
  actor: string;
}

export interface AdminRequest extends Request {
  admin?: AdminPrincipal;
}

/** Injects the signed-in administrator (routes behind the authentication guard always have one). */
export const CurrentAdmin = createParamDecorator((_data: unknown, context: ExecutionContext): AdminPrincipal => {
  const admin = context.switchToHttp().getRequest<AdminRequest>().admin;
  if (!admin) throw new Error('CurrentAdmin used on a route without a signed-in administrator');
  return admin;
});
