import { HttpException } from '@nestjs/common';

/** An HTTP error that tells the client when to retry (`Retry-After`, in seconds). */
export class RetryAfterException extends HttpException {
  constructor(
    message: string,
    status: number,
    readonly retryAfterSeconds: number,
  ) {
    super(message, status);
  }
}
