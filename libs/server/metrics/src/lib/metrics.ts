import { collectDefaultMetrics, Counter, Gauge, type Metric, Registry } from 'prom-client';
import { CounterChild, CounterFamily, HistogramChild, HistogramFamily } from './families';

/** The histograms' buckets, in seconds: 5 ms to a minute, the range of a proxied call. */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How a proxied call ended, as `arrbiter_proxy_requests_total` counts it. */
export type ProxyOutcome =
  | 'forwarded'
  | 'learned'
  | 'forbidden'
  | 'unauthorized'
  | 'bad-path'
  | 'upstream-unreachable'
  | 'upstream-timeout'
  | 'rate-limited';

/** What rebuilt the proxy state: one proxy, one app, or everything. */
export type ReloadKind = 'proxy' | 'app' | 'full';
/**
 * Why: a change made here, a change another replica announced, the change listener (re)connecting,
 * or the periodic sequence check finding a change that did not arrive.
 */
export type ReloadTrigger = 'local' | 'remote' | 'reconnect' | 'check';

export type TemplateSyncResult = 'success' | 'failure' | 'skipped';
export type SignInResult = 'success' | 'failure' | 'throttled';

/**
 * Every `arrbiter_*` metric of the process, and prom-client's process and event-loop defaults, in a
 * registry of its own. Provided only when `METRICS_PORT` is set (see `MetricsModule`): users inject
 * it with `@Optional()` and skip the call when it is absent.
 *
 * Never a path, a key or a query value in a label; no `app` label on histograms (there may be
 * thousands of apps).
 */
export class Metrics {
  readonly registry = new Registry();
  private databaseProbe: () => Promise<boolean> = async () => false;

  readonly proxyRequests = new CounterFamily(
    'arrbiter_proxy_requests_total',
    'Proxied calls by app, service, method, outcome and status code (app is empty when unauthorized)',
    ['app', 'service', 'method', 'outcome', 'code'] as const,
  );
  readonly proxyDuration = new HistogramFamily(
    'arrbiter_proxy_request_duration_seconds',
    'Time from the checks to the end of the response, by service and outcome',
    ['service', 'outcome'] as const,
    DURATION_BUCKETS,
  );
  readonly upstreamDuration = new HistogramFamily(
    'arrbiter_upstream_duration_seconds',
    'Time the upstream took to answer a forwarded call, by service',
    ['service'] as const,
    DURATION_BUCKETS,
  );
  readonly proxyBytes = new CounterFamily(
    'arrbiter_proxy_bytes_total',
    'Bytes on the wire between callers and the proxy route (headers included), by service and direction (in: from callers, out: to them)',
    ['service', 'direction'] as const,
  );
  readonly stateReloads = new Counter({
    name: 'arrbiter_state_reloads_total',
    help: 'Rebuilds of the in-memory proxy state by kind (proxy, app, full) and trigger (local, remote, reconnect, check)',
    labelNames: ['kind', 'trigger'] as const,
    registers: [this.registry],
  });
  readonly listenerConnected = new Gauge({
    name: 'arrbiter_state_listener_connected',
    help: '1 while the change listener (LISTEN/NOTIFY) is connected; 0 while it reconnects. Absent on the embedded database',
    registers: [this.registry],
  });
  readonly templateSyncs = new Counter({
    name: 'arrbiter_template_sync_total',
    help: 'Template syncs by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly signIns = new Counter({
    name: 'arrbiter_sign_ins_total',
    help: 'Password sign-ins by result (success, failure, throttled)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly databaseUp = new Gauge({
    name: 'arrbiter_database_up',
    help: '1 when the database answered SELECT 1 at this scrape, else 0',
    registers: [this.registry],
    // Called by prom-client on each scrape.
    collect: async () => {
      this.databaseUp.set((await this.databaseProbe()) ? 1 : 0);
    },
  });
  readonly buildInfo = new Gauge({
    name: 'arrbiter_build_info',
    help: 'The running version (always 1)',
    labelNames: ['version'] as const,
    registers: [this.registry],
  });

  constructor(version: string) {
    for (const family of [this.proxyRequests, this.proxyDuration, this.upstreamDuration, this.proxyBytes])
      this.registry.registerMetric(family as unknown as Metric);
    collectDefaultMetrics({ register: this.registry });
    this.buildInfo.set({ version }, 1);
    // Zero series for each known value, so that rates start from 0 rather than from the first event.
    for (const result of ['success', 'failure', 'throttled'] satisfies SignInResult[]) this.signIns.inc({ result }, 0);
    for (const result of ['success', 'failure', 'skipped'] satisfies TemplateSyncResult[])
      this.templateSyncs.inc({ result }, 0);
  }

  /** What `arrbiter_database_up` asks on each scrape (the health module's `SELECT 1`). */
  probeDatabaseWith(probe: () => Promise<boolean>): void {
    this.databaseProbe = probe;
  }

  /** The children of one proxy's app and service, bound once: keep the meter with the proxy's state. */
  proxyMeter(app: string, service: string): ProxyMeter {
    return new ProxyMeter(this, app, service);
  }

  reload(kind: ReloadKind, trigger: ReloadTrigger): void {
    this.stateReloads.inc({ kind, trigger });
  }

  /** The Prometheus text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The children of one method, outcome and status, as a `ProxyMeter` last used them. */
interface Bound {
  method: string;
  outcome: ProxyOutcome;
  code: number;
  requests: CounterChild;
  duration: HistogramChild;
}

/**
 * The proxy route's metrics for one app and service, with the children bound once (a method, outcome
 * and status seen for the first time binds its counter then): `record` only adds to numbers.
 *
 * The children of the last call's method, outcome and status are kept at hand: a proxy's calls are
 * mostly alike, and comparing three values costs less than building their key and looking it up, which
 * was three quarters of `record` (1 % of a proxied call's CPU, `--cpu-prof`, 2026-11-29 afternoon).
 */
export class ProxyMeter {
  private readonly requests = new Map<string, CounterChild>();
  private readonly durations = new Map<ProxyOutcome, HistogramChild>();
  private readonly upstream: HistogramChild;
  private readonly bytesIn: CounterChild;
  private readonly bytesOut: CounterChild;
  private last: Bound | undefined;

  constructor(
    /** The registry's metrics this meter adds to. */
    readonly metrics: Metrics,
    private readonly app: string,
    private readonly service: string,
  ) {
    this.upstream = metrics.upstreamDuration.child({ service });
    this.bytesIn = metrics.proxyBytes.child({ service, direction: 'in' });
    this.bytesOut = metrics.proxyBytes.child({ service, direction: 'out' });
  }

  /**
   * One call: its method, outcome, status, total seconds, the upstream's seconds (negative when no
   * upstream answered) and the bytes it moved each way.
   */
  record(
    method: string,
    outcome: ProxyOutcome,
    code: number,
    seconds: number,
    upstreamSeconds: number,
    bytesIn: number,
    bytesOut: number,
  ): void {
    let bound = this.last;
    if (bound === undefined || bound.code !== code || bound.method !== method || bound.outcome !== outcome)
      bound = this.last = this.bind(method, outcome, code);
    bound.requests.value += 1;
    bound.duration.observe(seconds);
    if (upstreamSeconds >= 0) this.upstream.observe(upstreamSeconds);
    this.bytesIn.value += bytesIn;
    this.bytesOut.value += bytesOut;
  }

  private bind(method: string, outcome: ProxyOutcome, code: number): Bound {
    const key = `${method} ${outcome} ${code}`;
    let requests = this.requests.get(key);
    if (requests === undefined) {
      requests = this.metrics.proxyRequests.child({
        app: this.app,
        service: this.service,
        method,
        outcome,
        code: String(code),
      });
      this.requests.set(key, requests);
    }
    let duration = this.durations.get(outcome);
    if (duration === undefined) {
      duration = this.metrics.proxyDuration.child({ service: this.service, outcome });
      this.durations.set(outcome, duration);
    }
    return { method, outcome, code, requests, duration };
  }
}
