import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ArgumentsHost, Catch, ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import { AccessLog } from './access-log';
import { ProxyRefusal, refuseUpgrade, sendProblem } from './proxy-problem';

/**
 * Every exception of the proxy pipeline becomes an answer: a `ProxyRefusal` its problem document and
 * access line, anything else a logged 500 (never a stack trace, key or internal id in the answer). An
 * upgrade is refused on its socket.
 */
@Catch()
@Injectable()
export class ProxyExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProxyGateway');

  constructor(private readonly accessLog: AccessLog) {}

  /** Returns `true`, handled: outside HTTP, Nest logs and rethrows what a filter returns nothing for. */
  catch(exception: unknown, host: ArgumentsHost): true {
    const [request, response] = host.getArgs<[IncomingMessage, ServerResponse | Socket]>();
    return this.answer(exception, request, response);
  }

  /** The answer itself, without Nest's arguments host (`ProxyGateway.handle` calls it directly). */
  answer(exception: unknown, request: IncomingMessage, response: ServerResponse | Socket): true {
    if (exception instanceof ProxyRefusal) {
      if (response instanceof ServerResponse) {
        this.accessLog.track(request, response, exception.fields);
        if (exception.retryAfterSeconds !== undefined)
          response.setHeader('Retry-After', String(exception.retryAfterSeconds));
        sendProblem(request, response, exception.status, exception.detail);
      } else refuseUpgrade(response, exception.status);
      return true;
    }
    const failure = exception instanceof Error ? exception : new Error(String(exception));
    this.logger.error({ err: { type: failure.name, message: failure.message, stack: failure.stack } }, 'proxy failed');
    if (response instanceof ServerResponse) sendProblem(request, response, 500, 'Internal server error');
    else response.destroy();
    return true;
  }
}
