import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The signed-in administrator of a request. */
export interface AdminPrincipal {
  id: string;
  username: string;
  sessionId: string;
}

export interface AdminRequest extends Request {
  admin?: AdminPrincipal;
}

/** Injects the signed-in administrator (routes behind the session guard always have one). */
export const CurrentAdmin = createParamDecorator((_data: unknown, context: ExecutionContext): AdminPrincipal => {
  const admin = context.switchToHttp().getRequest<AdminRequest>().admin;
  if (!admin) throw new Error('CurrentAdmin used on a route without a session');
  return admin;
});
