import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Metrics, ProxyMeter, ProxyOutcome } from '@arrbiter/server/metrics';
import { type AccessLogFields, peekProxyCall } from './proxy-context';
import type { ProxyRegistry, ProxyState } from './proxy-registry';

/** A connection's byte counts when its last call was metered. */
interface Counted {
  read: number;
  written: number;
}

/**
 * The proxy route's Prometheus metrics, fed once per call when its access line is written. Exists only
 * when `METRICS_PORT` is set: the gateway module provides `null` otherwise, and `AccessLog` skips it.
 *
 * Each proxy state gets its `ProxyMeter` (children bound to its app and service) on its first call,
 * kept on the state (`ProxyState.meter`: found with the state the call holds; a `WeakMap` lookup was a
 * quarter of this `record`); a reload makes new states, and so new meters. An unauthorized call
 * counts under `app=""`, since the slug there is the caller's word.
 */
export class ProxyMetering {
  /**
   * Beside the sockets, not on them: a property added to some of Node's sockets and not to others
   * (the upstream's, the admin API's) gives them two shapes for Node's own code to handle on every call.
   */
  private readonly counted = new WeakMap<Socket, Counted>();
  private readonly unauthorized: ProxyMeter;

  constructor(
    private readonly metrics: Metrics,
    private readonly registry: ProxyRegistry,
  ) {
    this.unauthorized = metrics.proxyMeter('', '');
  }

  record(request: IncomingMessage, fields: AccessLogFields, status: number, milliseconds: number): void {
    const proxy = peekProxyCall(request)?.proxy ?? this.refused(fields);
    let meter = this.unauthorized;
    if (proxy !== undefined) {
      const bound = proxy.meter;
      if (bound === undefined || bound.metrics !== this.metrics)
        meter = proxy.meter = this.metrics.proxyMeter(proxy.appSlug, proxy.service.name);
      else meter = bound;
    }
    const forwarded = fields.outcome === 'forwarded';
    const outcome: ProxyOutcome = forwarded && fields.learned ? 'learned' : fields.outcome;
    // Bytes since the last call on this connection (keep-alive connections carry many calls).
    const socket = request.socket;
    let counted = this.counted.get(socket);
    if (counted === undefined) {
      counted = { read: 0, written: 0 };
      this.counted.set(socket, counted);
    }
    const read = socket.bytesRead;
    const written = socket.bytesWritten;
    meter.record(
      request.method ?? 'GET',
      outcome,
      status,
      milliseconds / 1000,
      forwarded && fields.upstreamMs !== undefined ? fields.upstreamMs / 1000 : -1,
      read - counted.read,
      written - counted.written,
    );
    counted.read = read;
    counted.written = written;
  }

  /** The proxy of a call the guard refused after finding it (over its rate limit): it set no call. */
  private refused(fields: AccessLogFields): ProxyState | undefined {
    if (fields.outcome !== 'rate-limited') return undefined;
    for (const proxy of this.registry.app(fields.app)?.proxies.values() ?? [])
      if (proxy.id === fields.proxyId) return proxy;
    return undefined;
  }
}
