import { connect } from 'node:net';

/** One response read off a raw connection. */
export interface WireResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface Exchange {
  /** Final responses (interim 1xx ones left out, a 101 kept and ending the read), in order. */
  responses: WireResponse[];
  /** Interim responses (1xx but 101, such as `100 Continue`) read before the last final one, in order. */
  interim: WireResponse[];
  /** The server closed the connection (after the responses above). */
  closed: boolean;
  /** Neither enough responses nor a close came within the time allowed. */
  timedOut: boolean;
}

interface Parsed {
  response: WireResponse;
  /** Bytes the response took, head and body. */
  length: number;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** Parses one response at the start of `buffer`; undefined while it is incomplete. */
function parseResponse(buffer: Buffer, method: string, closed: boolean): Parsed | undefined {
  const end = buffer.indexOf(CRLF2);
  if (end < 0) return undefined;
  const lines = buffer.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? NaN);
  if (Number.isNaN(status)) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const start = end + 4;
  const noBody = method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
  if (noBody) return { response: { status, headers, body: Buffer.alloc(0) }, length: start };
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const chunks: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) {
        // The last chunk's line, its trailers if any, then an empty line.
        const trailerEnd = buffer.indexOf(CRLF2, lineEnd);
        if (trailerEnd < 0) return undefined;
        return { response: { status, headers, body: Buffer.concat(chunks) }, length: trailerEnd + 4 };
      }
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  if (headers['content-length'] !== undefined) {
    const size = Number(headers['content-length']);
    if (buffer.length < start + size) return undefined;
    return { response: { status, headers, body: buffer.subarray(start, start + size) }, length: start + size };
  }
  // Delimited by the end of the connection.
  if (!closed) return undefined;
  return { response: { status, headers, body: buffer.subarray(start) }, length: buffer.length };
}

export interface ExchangeOptions {
  /** How long to wait in all (default 5 s). */
  timeoutMs?: number;
  /** After the responses, wait for the server to close the connection too (default false). */
  untilClose?: boolean;
  /** Written when the first interim response comes: a body sent once the server says `100 Continue`. */
  afterInterim?: Buffer | string;
}

/**
 * Writes `bytes` as they are on a new connection to `port` and reads responses until `methods.length`
 * final responses came (the i-th answering a request of method `methods[i]`), the server closed the
 * connection, or the time-out passed. The connection is closed by this side afterwards. `afterInterim`
 * is written when the first interim response comes.
 */
export function exchange(
  port: number,
  bytes: Buffer | string,
  methods: readonly string[],
  { timeoutMs = 5_000, untilClose = false, afterInterim }: ExchangeOptions = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const responses: WireResponse[] = [];
    const interim: WireResponse[] = [];
    let settled = false;
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses, interim, closed, timedOut });
    };
    const drain = (closed: boolean): boolean => {
      for (;;) {
        if (responses.length >= methods.length) return true;
        if (buffer.length === 0) return false;
        const parsed = parseResponse(buffer, methods[responses.length], closed);
        if (!parsed) return false;
        buffer = buffer.subarray(parsed.length);
        const { status } = parsed.response;
        if (status >= 100 && status < 200 && status !== 101) {
          if (interim.push(parsed.response) === 1 && afterInterim !== undefined) socket.write(afterInterim);
          continue;
        }
        responses.push(parsed.response);
        if (status === 101) return true;
      }
    };
    const timer = setTimeout(() => finish(false, true), timeoutMs);
    socket.on('data', (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      try {
        if (drain(false) && !untilClose) finish(false, false);
      } catch (error) {
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    socket.on('close', () => {
      try {
        drain(true);
      } catch {
        // What is left is not a response: the connection ended.
      }
      finish(true, false);
    });
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}
