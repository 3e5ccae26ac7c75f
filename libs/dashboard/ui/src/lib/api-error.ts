import { HttpErrorResponse } from '@angular/common/http';
import type { ApiError } from '@arrbiter/contracts';

/** A sentence for a person from any failed admin call. */
export function describeError(error: unknown): string {
  if (error instanceof HttpErrorResponse) {
    if (error.status === 0) return 'The server cannot be reached. Check your connection and try again.';
    const body = error.error as Partial<ApiError> | null;
    const message = body?.message;
    if (Array.isArray(message)) return message.join('. ');
    if (typeof message === 'string' && message) return message;
    return `The server answered ${error.status} ${error.statusText}`.trim();
  }
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/** Each problem of a failed admin call on its own line (a 400 names every field at fault). */
export function errorLines(error: unknown): string[] {
  if (error instanceof HttpErrorResponse && Array.isArray((error.error as Partial<ApiError> | null)?.message))
    return (error.error as ApiError).message as string[];
  return [describeError(error)];
}
