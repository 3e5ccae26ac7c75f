import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { ApiError } from '@arrbiter/contracts';
import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable } from './database-errors';
import { RetryAfterException } from './retry-after.exception';

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

/** The driver's message of a database error (never its parameters). */
function causeOf(exception: unknown): string {
  const driverError = (exception as { driverError?: unknown }).driverError;
  const error = driverError instanceof Error ? driverError : exception;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The one exception filter of the admin API, health and dashboard: `{statusCode, error, message}` (the
 * proxy route answers RFC 9457 problem documents itself). Never a stack trace, key or internal id in a response; unexpected
 * errors are logged by name, message and stack only (never a driver error's parameters).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const response = context.getResponse<Response>();
    const { status, message } = outcomeOf(exception);

    if (status === HttpStatus.SERVICE_UNAVAILABLE && !(exception instanceof HttpException)) {
      // An expected fault (the database is away): one warning line, no stack trace.
      this.logger.warn(`Answered 503, the database is unavailable: ${causeOf(exception)}`);
    } else if (status >= 500 && !(exception instanceof HttpException)) {
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
    const body: ApiError = { statusCode: status, error: title, message };
    response.status(status).json(body);
  }
}
