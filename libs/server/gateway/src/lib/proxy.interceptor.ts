import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { AccessLogFields } from './proxy-context';
import type { ForwardOutcome } from './upstream-forwarder';

/**
 * Times the forwarded leg of a request and records its outcome in the access log line
 * (`proxy.outcome`, `proxy.upstreamMs`), which `AccessLog` writes when the response ends.
 */
@Injectable()
export class ProxyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler<ForwardOutcome>): Observable<void> {
    const response = context.switchToHttp().getResponse<Response>();
    const started = performance.now();
    return next.handle().pipe(
      map((outcome) => {
        const fields = response.locals['proxy'] as AccessLogFields | undefined;
        if (fields) {
          fields.outcome = outcome;
          fields.upstreamMs = Math.round((performance.now() - started) * 10) / 10;
        }
      }),
    );
  }
}
