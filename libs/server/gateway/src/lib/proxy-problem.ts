import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ProblemDetails } from '@arrbiter/contracts';
import { awaitsContinue } from './expect-continue';
import type { AccessLogFields } from './proxy-context';

/** One body for every 401, so that a caller cannot tell which slugs exist. */
export const UNAUTHORIZED_DETAIL = 'A valid key for an active proxy of this app is required';
export const FORBIDDEN_DETAIL = 'This method and path are not in the allowlist of this proxy';
export const NO_SLUG_DETAIL = 'Proxy URLs are /proxy/{appSlug}/{path}';

/**
 * A proxy call the pipeline refuses: answered with an RFC 9457 problem document and one access line.
 * Thrown by the guard and the interceptor and caught by `ProxyExceptionFilter`. Not an `Error`: a
 * refusal is an answer, not a fault, and capturing a stack trace for each one was 2.6 % of the proxy's
 * CPU under a flood of denied calls (`npm run bench` profile).
 */
export class ProxyRefusal {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly fields: AccessLogFields,
    /** Sent as `Retry-After` (a 429). */
    readonly retryAfterSeconds?: number,
  ) {}
}

/**
 * Added to every answer on /proxy, the upstream's (`UpstreamForwarder`) and this hop's own: proxied
 * answers share the dashboard's origin (unless /proxy has a host name of its own), so a browser neither
 * guesses a type (an answer sniffed as HTML) nor runs a document from one with that origin (`sandbox`:
 * an opaque origin, no scripts, forms or pop-ups). An upstream's own policy is kept beside it.
 */
export const ISOLATION_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': 'sandbox' } as const;

const problemBodies = new Map<string, string>();

/** The serialised RFC 9457 document; the set of statuses and details is small and fixed, so it is cached. */
function problemBody(status: number, detail: string): string {
  const key = `${status}|${detail}`;
  let body = problemBodies.get(key);
  if (body === undefined) {
    const problem: ProblemDetails = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail };
    body = JSON.stringify(problem);
    if (problemBodies.size < 1000) problemBodies.set(key, body);
  }
  return body;
}

/** A refused request's body up to this size is read and discarded, and its connection kept. */
export const DISCARDED_BODY_LIMIT = 64 * 1024;
/** How long the rest of a refused body may take to arrive before the connection is closed. */
const DISCARD_DEADLINE_MS = 5_000;
/** How much of a larger refused body is read, after the answer, before the connection is closed. */
const LINGER_BYTE_LIMIT = 8 * 1024 * 1024;

/** Connections whose last answer said `Connection: close`. */
const closing = new WeakSet<Socket>();

/**
 * Whether an answer on this connection said `Connection: close`: a request pipelined behind it must not
 * be processed (RFC 9112 §9.6), since its answer could never be sent. Node parses and dispatches it
 * all the same, once it has read the body before it.
 */
export function closesAfterAnswer(socket: Socket): boolean {
  return closing.has(socket);
}

/** Writes an RFC 9457 problem document as the whole response (destroys one already under way). */
export function writeProblem(res: ServerResponse, status: number, detail: string, close = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.end(writeProblemHead(res, status, detail, close));
}

/** Writes the head of a problem document's response and returns its body. */
function writeProblemHead(res: ServerResponse, status: number, detail: string, close: boolean): string {
  const body = problemBody(status, detail);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    ...ISOLATION_HEADERS,
  };
  if (close) headers['Connection'] = 'close';
  res.writeHead(status, headers);
  return body;
}

/**
 * Answers a request that is not forwarded. A body that came with it must not be left on the
 * connection: a small one (declared at most 64 KiB) is read and discarded by Node and the connection
 * stays usable for the client's next call; a larger or unsized (chunked) one, or one whose client
 * waits for `100 Continue` (which a refusal never sends), is answered `Connection: close`, and the
 * connection closed once the body is in (a lingering close, RFC 9112 §9.6), after 8 MiB or 5 s at the
 * latest, or when the client closes it.
 */
export function sendProblem(req: IncomingMessage, res: ServerResponse, status: number, detail: string): void {
  const declared = req.headers['content-length'];
  const close =
    awaitsContinue(res) || req.headers['transfer-encoding'] !== undefined || Number(declared) > DISCARDED_BODY_LIMIT;
  if (close) closing.add(req.socket);
  if (close && !req.complete && !res.headersSent) return answerThenLinger(req, res, status, detail);
  if (!close && Number(declared) > 0 && !res.headersSent) discardWithin(req, res, DISCARD_DEADLINE_MS);
  writeProblem(res, status, detail, close);
}

/** Closes the connection if the rest of a small refused body has not arrived in time. */
function discardWithin(req: IncomingMessage, res: ServerResponse, ms: number): void {
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), ms).unref();
    req.once('end', () => clearTimeout(timer));
  });
}

/** Responses answered in full and lingering for the body: when the answer went out (`performance.now()`). */
const lingering = new WeakMap<ServerResponse, number>();

/**
 * When a response that lingers for its request's body had its answer sent in full, if it is one. Its
 * access line reports the answer, not the client that went away without the rest of its body.
 */
export function answeredBeforeLinger(res: ServerResponse): number | undefined {
  return lingering.get(res);
}

/**
 * Sends the whole answer at once but ends the response, which closes the connection, only when the
 * client has sent its body, or after `LINGER_BYTE_LIMIT` bytes or `DISCARD_DEADLINE_MS`. A connection
 * closed while the client is still sending is reset by the kernel, and a client still writing its body
 * then sees the reset (EPIPE, ECONNRESET) in place of the answer it was sent.
 */
function answerThenLinger(req: IncomingMessage, res: ServerResponse, status: number, detail: string): void {
  res.write(writeProblemHead(res, status, detail, true));
  lingering.set(res, performance.now());
  let read = 0;
  const end = () => {
    clearTimeout(timer);
    req.off('data', count).off('end', end);
    res.end();
  };
  const count = (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTE_LIMIT) end();
  };
  const timer = setTimeout(end, DISCARD_DEADLINE_MS).unref();
  req.on('data', count).once('end', end);
  res.once('close', () => clearTimeout(timer));
}

/** Refuses a WebSocket upgrade on its raw socket. */
export function refuseUpgrade(socket: Socket, status: number): void {
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n` +
      'X-Content-Type-Options: nosniff\r\nContent-Security-Policy: sandbox\r\n\r\n',
  );
}
