import { BadRequestException, CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { overrideProblems } from '@arrbiter/server/catalog';
import type { Request } from 'express';
import type { Observable } from 'rxjs';

/**
 * Checks the `overrides` map of a JSON body as it was parsed, before the validation pipe sees it. The
 * pipe deletes `__proto__`, `constructor` and `prototype` keys in place, so `{"__proto__": ["get"]}`
 * would otherwise reach `overrideProblems` as `{}` and be saved as no override at all. Interceptors
 * run before pipes; the service checks the (stripped) map again.
 */
@Injectable()
export class RawOverridesCheck implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body: unknown = context.switchToHttp().getRequest<Request>().body;
    const overrides =
      typeof body === 'object' && body !== null ? (body as { overrides?: unknown }).overrides : undefined;
    // Anything but an object is the DTO's to refuse (with its own message).
    if (typeof overrides === 'object' && overrides !== null && !Array.isArray(overrides)) {
      const problems = overrideProblems(overrides);
      if (problems.length > 0) throw new BadRequestException(problems);
    }
    return next.handle();
  }
}
