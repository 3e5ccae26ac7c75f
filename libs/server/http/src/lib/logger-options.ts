import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { DestinationStream, pino } from 'pino';
import type { Options } from 'pino-http';
import { BatchedLines } from './batched-lines';
import { LogOutput } from './log-output';

/** Header and field paths that never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.apiKey',
  '*.apikey',
  '*.key',
];

/**
 * Query parameters whose values are credentials: proxy keys (`apikey`, `access_token`) and the
 * single sign-on callback's one-time authorization `code`.
 */
const SECRET_PARAMETERS = new Set(['apikey', 'access_token', 'code']);

/** Replaces the value of every credential query parameter (any case) so that no key reaches a log. */
export function sanitizeUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed name is kept as it is.
      }
      return SECRET_PARAMETERS.has(decoded.trim().toLowerCase()) ? `${name}=[REDACTED]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface LoggerOptionsInput {
  level: string;
  /** Where log lines go (stdout by default); tests pass a stream to read them. */
  destination?: DestinationStream;
}

let stdout: BatchedLines | undefined;

/**
 * A batch of standard output is written once it holds this many characters (or after 250 ms). Each
 * batch is one write on a thread-pool thread and a wake-up of that thread and of the event loop: at
 * 8 KiB (about 27 access lines) that thread spent about 4 µs of CPU per proxied call in `npm run bench`'s
 * 32-connection cell, at 64 KiB about 1 µs (2026-11-28, per-thread CPU from /proc, six rounds;
 * docs/performance-log.md). 8 KiB is the earlier value, if lines must leave sooner under load.
 */
export const LOG_BATCH_CHARS = 64 * 1024;

/** Standard output, written in batches (see `buildLoggerOptions`); one stream per process. */
function standardOutput(): BatchedLines {
  stdout ??= new BatchedLines(pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 }), {
    batchChars: LOG_BATCH_CHARS,
    intervalMs: 250,
  });
  return stdout;
}

/** The process's log output: `destination`, else standard output written in batches. */
export function createLogOutput({ level, destination }: LoggerOptionsInput): LogOutput {
  return new LogOutput(level, destination ?? standardOutput());
}

/**
 * Writes out what standard output holds now, synchronously: once start-up has logged what an operator
 * waits for (the port, a generated admin password) before the server accepts its first request.
 */
export function flushLogs(): void {
  stdout?.flushSync();
}

/** nestjs-pino options: JSON logs, one access line per request, nothing secret. */
export function buildLoggerOptions({ level, destination }: LoggerOptionsInput): Params {
  const options: Options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      // Only what is safe: no headers but the user agent, the URL with keys removed.
      req: (req: {
        id?: unknown;
        method?: string;
        url?: string;
        remoteAddress?: string;
        headers?: Record<string, unknown>;
      }) => ({
        id: req.id,
        method: req.method,
        url: sanitizeUrl(req.url),
        remoteAddress: req.remoteAddress,
        userAgent: req.headers?.['user-agent'],
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
    // A 503 is the answer while the database is away (design.md §6): expected, a warning.
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
      error || (res.statusCode >= 500 && res.statusCode !== 503) ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    // For a 5xx answer pino-http makes up an error ("failed with status code 503") whose stack is its
    // own: the status says it all, and the exception filter has logged the real cause.
    customErrorObject: (_req: IncomingMessage, res: ServerResponse, error: Error, value: Record<string, unknown>) => {
      if (error.message !== `failed with status code ${res.statusCode}`) return value;
      const { err: _made, ...rest } = value;
      return rest;
    },
    autoLogging: {
      ignore: (req: IncomingMessage) => req.url === '/health' || req.url === '/health/ready',
    },
  };
  return {
    // The proxy route never reaches Express: it writes its own access line (gateway's AccessLog).
    // Standard output is written asynchronously, in batches: a write per line is a system call and a
    // thread-pool round trip on every proxied request (measured by `npm run bench`). Lines are written
    // once 64 KiB have gathered (`LOG_BATCH_CHARS`) or 250 ms have passed, and on exit (`BatchedLines`). Bounded: when
    // whatever reads standard output stalls, lines beyond 16 MB are dropped rather than held in memory.
    pinoHttp: [options, destination ?? standardOutput()],
  };
}
