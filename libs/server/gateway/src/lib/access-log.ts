import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger as NestLogger, OnModuleDestroy, Optional } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { Logger, pino } from 'pino';
import { AppConfig } from '@arrbiter/server/config';
import { LogOutput } from '@arrbiter/server/http';
import { UsageCounter } from '@arrbiter/server/usage';
import { type AccessLogFields, peekProxyCall } from './proxy-context';
import { ProxyMetering } from './proxy-metering';
import { answeredBeforeLinger } from './proxy-problem';
import { RecentCalls } from './recent-calls';

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

/** pino's numbers for the access line's two levels. */
const INFO = pino.levels.values['info'];
const WARN = pino.levels.values['warn'];

/**
 * One structured line per proxy request, written when the response ends: method, canonical path (never
 * the query, which may carry a key), status, duration and the gateway's decision (app, proxy, route,
 * outcome, upstream time). Written with one logger for all lines: no per-request child logger on the hot path.
 *
 * Written directly by default (`ACCESS_LOG_WRITER=direct`): `JSON.stringify` of a fresh object of one
 * fixed shape, in pino's line format, into pino's destination. Measured by `npm run bench:ab` against
 * the same line through pino (`ACCESS_LOG_WRITER=pino`): about 6 µs less CPU per proxied call, 3 % of
 * it (median of 6 rounds; docs/performance-log.md, "Results — 2026-11-24 (afternoon)"). What costs is
 * serialising `fields`, which the checks and the forwarding fill in as the call goes; a copy of one
 * fixed shape serialises on V8's fast path.
 */
@Injectable()
export class AccessLog implements OnModuleDestroy {
  private logger?: Logger;
  /** Where lines are written directly; `null`: through pino. */
  private readonly direct: LogOutput | null;
  /** `BENCH_TOGGLE`'s `SIGUSR2` listener; `undefined` when it is unset. */
  private readonly toggle?: () => void;

  constructor(
    config: AppConfig,
    @Optional() @Inject(LogOutput) output: LogOutput | null,
    /** `null` unless METRICS_PORT is set: then each line also feeds the metrics. */
    @Optional() @Inject(ProxyMetering) private metering: ProxyMetering | null = null,
    /** `null` when USAGE_COUNTING=false: otherwise each call of a known proxy is counted, in memory. */
    @Optional() @Inject(UsageCounter) private usage: UsageCounter | null = null,
    /** "First calls, live": fed only while some proxy's view is open (`RecentCalls.armed`). */
    @Optional() @Inject(RecentCalls) private readonly recent: RecentCalls | null = null,
  ) {
    this.direct = config.accessLogWriter === 'direct' ? (output ?? null) : null;
    // The bench's switch (`BENCH_TOGGLE`): each SIGUSR2 sets the feature's field to `null` or back, so
    // the access line's work for a call is exactly what it is with the feature off (USAGE_COUNTING=false,
    // no METRICS_PORT) or on, and nothing more in either state. The rest stays as started: the usage
    // counters' write-behind timer, the 401 counts of the key guard, the metrics port and its collectors.
    // Each switch is logged with the state it left ("Bench toggle: metrics off"): two signals sent
    // closer together than the process takes them are delivered as one, and the bench checks the state.
    const [meteringOn, usageOn] = [this.metering, this.usage];
    const logger = new NestLogger(AccessLog.name);
    const switched = (on: boolean) => logger.log(`Bench toggle: ${config.benchToggle} ${on ? 'on' : 'off'}`);
    if (config.benchToggle === 'metrics')
      this.toggle = () => {
        this.metering = this.metering === null ? meteringOn : null;
        switched(this.metering !== null);
      };
    else if (config.benchToggle === 'usage-counting')
      this.toggle = () => {
        this.usage = this.usage === null ? usageOn : null;
        switched(this.usage !== null);
      };
    if (this.toggle !== undefined) process.on('SIGUSR2', this.toggle);
  }

  onModuleDestroy(): void {
    if (this.toggle !== undefined) process.off('SIGUSR2', this.toggle);
  }

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
      // A refusal of a call with a large body is answered before the body is in, and the client may go.
      const answered = fields.outcome === 'forwarded' ? undefined : answeredBeforeLinger(response);
      const responseTime = Math.round(((answered ?? performance.now()) - started) * 10) / 10;
      if (fields.outcome === 'forwarded') fields.upstreamMs ??= responseTime;
      this.metering?.record(request, fields, status, responseTime);
      // In memory, no query: additions to the proxy's counts, kept with its state between calls.
      if (this.usage !== null && fields.proxyId !== undefined) {
        const call = peekProxyCall(request)?.proxy;
        const proxy = call?.id === fields.proxyId ? call : undefined;
        const slot = this.usage.count(
          fields.proxyId,
          fields.method,
          fields.route ?? fields.path,
          refusedOutcome(fields.outcome),
          status >= 500,
          proxy?.usage,
        );
        if (proxy !== undefined) proxy.usage = slot;
      }
      // One boolean while no view is open.
      if (this.recent?.armed) this.recent.record(request, fields, status);
      const finished = answered !== undefined || response.writableFinished;
      const level = status >= 500 || !finished ? WARN : INFO;
      const direct = this.direct;
      if (direct === null) {
        const line = {
          proxy: fields,
          status: finished ? status : 'aborted',
          responseTime,
          userAgent: request.headers['user-agent'],
          remoteAddress: request.socket.remoteAddress,
        };
        if (level === WARN) this.log.warn(line, 'proxy request');
        else this.log.info(line, 'proxy request');
        return;
      }
      if (!direct.enabled(level)) return;
      // The members in pino's order; `undefined` ones are left out, as pino leaves them out.
      direct.writeLine(
        JSON.stringify({
          level,
          time: Date.now(),
          pid: direct.pid,
          hostname: direct.hostname,
          proxy: {
            method: fields.method,
            app: fields.app,
            proxyId: fields.proxyId,
            path: fields.path,
            route: fields.route,
            outcome: fields.outcome,
            learned: fields.learned,
            upstreamMs: fields.upstreamMs,
          },
          status: finished ? status : 'aborted',
          responseTime,
          userAgent: request.headers['user-agent'],
          remoteAddress: request.socket.remoteAddress,
          msg: 'proxy request',
        }),
      );
    });
    return started;
  }
}
