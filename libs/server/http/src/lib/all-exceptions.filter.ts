import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { ApiError, ProblemDetails } from '@arrbiter/contracts';
import type { Request, Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable } from './database-errors';
import { RetryAfterException } from './retry-after.exception';

/** The path prefix of the proxy route, whose errors are `application/problem+json`. */
export const PROXY_PREFIX = '/proxy/';

const problemBodies = new Map<string, string>();

/** The serialised problem document, cached (the set of statuses and details is small and fixed). */
function problemBody(status: number, title: string, detail: string): string {
  const key = `${status}|${detail}`;
  let body = problemBodies.get(key);
  if (body === undefined) {
    const problem: ProblemDetails = { type: 'about:blank', title, status, detail };
    body = JSON.stringify(problem);
    if (problemBodies.size < 1000) problemBodies.set(key, body);
  }
  return body;
}

interface Outcome {
  status: number;
  message: string | string[];
}

function outcomeOf(exception: unknown): Outcome {
  if (exception instanceof HttpException) {
    const body = exception.getResponse();
    const message =
      typeof body === 'string' ? body : ((body as { message?: string | string[] }).message ?? exception.message);
    return { status: exception.getStatus(), message };
  }
  if (isDatabaseUnavailable(exception)) {
    return { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'The database is unavailable; try again shortly' };
  }
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal server error' };
}

/**
 * The one exception filter. Admin API: `{statusCode, error, message}`. Proxy route: RFC 9457
 * `application/problem+json`. Never a stack trace, key or internal id in a response; unexpected
 * errors are logged by name, message and stack only (never a driver error's parameters).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const request = context.getRequest<Request>();
    const response = context.getResponse<Response>();
    const { status, message } = outcomeOf(exception);

    if (status >= 500 && !(exception instanceof HttpException)) {
      const error = exception instanceof Error ? exception : new Error(String(exception));
      this.logger.error({ err: { type: error.name, message: error.message, stack: error.stack } }, 'request failed');
    }
    if (response.headersSent) {
      // Part of a response already went out (a streamed body): all that is left is to end it.
      response.destroy();
      return;
    }
    if (exception instanceof RetryAfterException) {
      response.setHeader('Retry-After', String(exception.retryAfterSeconds));
    }
    const title = STATUS_CODES[status] ?? 'Error';
    const path = request.originalUrl ?? request.url;
    if (path.startsWith(PROXY_PREFIX)) {
      // The proxy route's refusals are a hot path under a flood: their few bodies are built once.
      const detail = Array.isArray(message) ? message.join('; ') : message;
      const body = problemBody(status, title, detail);
      response.writeHead(status, {
        'Content-Type': 'application/problem+json',
        'Content-Length': Buffer.byteLength(body),
      });
      response.end(body);
      return;
    }
    const body: ApiError = { statusCode: status, error: title, message };
    response.status(status).json(body);
  }
}
