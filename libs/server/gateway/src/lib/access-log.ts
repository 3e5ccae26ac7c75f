import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import { UsageCounter } from '@arrbiter/server/usage';
import type { AccessLogFields } from './proxy-context';
import { ProxyMetering } from './proxy-metering';

/** Whether a call the usage counters see (one with a proxy) was refused: by the allowlist, rate limit or path. */
function refusedOutcome(outcome: AccessLogFields['outcome']): boolean {
  switch (outcome) {
    case 'forwarded':
    case 'upstream-unreachable':
    case 'upstream-timeout':
      return false;
    case 'forbidden':
    case 'rate-limited':
    case 'bad-path':
    case 'unauthorized':
      return true;
  }
}

/**
 * One structured line per proxy request, written when the response ends: method, canonical path (never
 * the query, which may carry a key), status, duration and the gateway's decision (app, proxy, route,
 * outcome, upstream time). Written with one logger for all lines: no per-request child logger on the hot path.
 */
@Injectable()
export class AccessLog {
  private logger?: Logger;

  constructor(
    /** `null` unless METRICS_PORT is set: then each line also feeds the metrics. */
    @Optional() @Inject(ProxyMetering) private readonly metering: ProxyMetering | null = null,
    /** `null` when USAGE_COUNTING=false: otherwise each call of a known proxy is counted (issue 19). */
    @Optional() @Inject(UsageCounter) private readonly usage: UsageCounter | null = null,
  ) {}

  /**
   * The root logger without its redaction: the line is built from the fields above, which hold no
   * secret, and walking the redaction paths for every proxied call costs more than the rest of the line.
   */
  private get log(): Logger {
    return (this.logger ??= PinoLogger.root.child({}, { redact: { paths: [] } }));
  }

  /**
   * Writes the line when the response closes, from `fields` as they are then (a forwarded request
   * whose upstream time nobody set took the whole response time upstream). Returns the start time.
   */
  track(request: IncomingMessage, response: ServerResponse, fields: AccessLogFields): number {
    const started = performance.now();
    // 'close' is emitted once per response: `on` spares the wrapper `once` would add to every call.
    response.on('close', () => {
      const status = response.statusCode;
      const responseTime = Math.round((performance.now() - started) * 10) / 10;
      if (fields.outcome === 'forwarded') fields.upstreamMs ??= responseTime;
      this.metering?.record(request, fields, status, responseTime);
      // In memory, no query: additions in maps keyed by strings the call already holds.
      if (this.usage !== null && fields.proxyId !== undefined)
        this.usage.count(
          fields.proxyId,
          fields.method,
          fields.route ?? fields.path,
          refusedOutcome(fields.outcome),
          status >= 500,
        );
      const line = {
        proxy: fields,
        status: response.writableFinished ? status : 'aborted',
        responseTime,
        userAgent: request.headers['user-agent'],
        remoteAddress: request.socket.remoteAddress,
      };
      if (status >= 500 || !response.writableFinished) this.log.warn(line, 'proxy request');
      else this.log.info(line, 'proxy request');
    });
    return started;
  }
}
