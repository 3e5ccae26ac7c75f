import type { ServerResponse } from 'node:http';

/** Responses whose client waits for `100 Continue` before it sends its body (RFC 9110 §10.1.1). */
const awaiting = new WeakSet<ServerResponse>();

/**
 * The client sent `Expect: 100-continue` and nothing has answered it yet: the proxy sends `100 Continue`
 * only once the call is allowed (`continueIfAwaited`), so that a refused call's body is never sent.
 */
export function awaitContinue(res: ServerResponse): void {
  awaiting.add(res);
}

/** Sends `100 Continue` if the client waits for it: the call is allowed and its body is now wanted. */
export function continueIfAwaited(res: ServerResponse): void {
  if (awaiting.delete(res)) res.writeContinue();
}

/**
 * Whether the client still waits for `100 Continue`. Such a call is refused with `Connection: close`:
 * the client may send its body after all or never, and the connection cannot be read past it either way.
 */
export function awaitsContinue(res: ServerResponse): boolean {
  return awaiting.has(res);
}
