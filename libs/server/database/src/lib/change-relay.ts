import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { Metrics } from '@arrbiter/server/metrics';
import { Client, type ClientConfig, type Notification } from 'pg';
import { DataSource } from 'typeorm';
import { Change, ChangeBus, ChangeSender, ChangeTopic } from './change-bus';

/** The one channel every replica LISTENs on. */
export const CHANGE_CHANNEL = 'arrbiter_changes';
/** Numbers every notification (migration `ReplicaChanges`): the periodic check compares its last value. */
export const CHANGE_SEQUENCE = 'arrbiter_change_seq';
/** The first reconnect waits this long, each next one twice as long, up to `MAX_RECONNECT_MS`. */
export const FIRST_RECONNECT_MS = 500;
export const MAX_RECONNECT_MS = 30_000;
/** How often the listener compares the sequence with the last number it saw. */
export const SEQUENCE_CHECK_MS = 15_000;
/** Time-outs of the listener's connection and queries; TCP keep-alive probes start after this idle time. */
const CONNECT_TIMEOUT_MS = 10_000;
const KEEPALIVE_IDLE_MS = 10_000;

const TOPICS: ReadonlySet<ChangeTopic> = new Set([
  'services',
  'apps',
  'proxies',
  'catalog',
  'templates',
  'settings',
  'recent-calls',
  'all',
] satisfies ChangeTopic[]);

/** The wait before reconnect attempt `attempt` (0 first): 0.5 s, 1 s, 2 s… never more than 30 s. */
export function reconnectDelay(attempt: number): number {
  return Math.min(MAX_RECONNECT_MS, FIRST_RECONNECT_MS * 2 ** Math.min(attempt, 16));
}

/** A notification's payload: origin instance, topic, object id (or null), sequence number. ~90 bytes. */
interface Payload {
  o: string;
  t: ChangeTopic;
  i: string | null;
  s: number;
}

function parsePayload(text: string | undefined): Payload | undefined {
  try {
    const value = JSON.parse(text ?? '') as Partial<Payload>;
    if (typeof value.o !== 'string' || !TOPICS.has(value.t as ChangeTopic) || typeof value.s !== 'number')
      return undefined;
    if (value.i !== null && typeof value.i !== 'string') return undefined;
    return value as Payload;
  } catch {
    return undefined;
  }
}

/**
 * Carries changes between replicas over PostgreSQL `LISTEN/NOTIFY` (no other broker to run): each change this
 * process publishes is announced with `pg_notify` on one channel (through the pool: NOTIFY works through a
 * transaction pooler), and the other replicas' announcements are handed to the local `ChangeBus`
 * listeners, which apply them as they apply local changes.
 *
 * The listener is a `pg` client of its own, not a pool connection (pooled connections are recycled and
 * would lose the subscription), with TCP keep-alive and its own `application_name`
 * (`arrbiter-listener-<instance>`), on `DATABASE_LISTEN_URL` when set. When it loses its connection it
 * reconnects with backoff (0.5 s doubling to 30 s, never giving up); after each reconnect it LISTENs,
 * then reloads everything, which covers what it missed. Every `SEQUENCE_CHECK_MS` it compares the
 * sequence's last value with the last number it saw, and reloads everything if a notification has
 * been missing since the previous check.
 *
 * On the embedded database (no `DATABASE_URL`) there is only ever one process: no listener runs.
 */
@Injectable()
export class ChangeRelay implements ChangeSender, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeRelay.name);
  /** This process, in its notifications and its listener's `application_name`. */
  readonly instance = randomBytes(4).toString('hex');
  readonly applicationName = `arrbiter-listener-${this.instance}`;
  readonly enabled: boolean;
  private client?: Client;
  private listening = false;
  private synced: boolean;
  private stopped = false;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private checkTimer?: NodeJS.Timeout;
  /** The highest sequence number seen on the channel (own announcements included). */
  private seen = 0;
  /** The sequence's last value at the previous check. */
  private previousCheck = 0;

  constructor(
    private readonly config: AppConfig,
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly bus: ChangeBus,
    @Optional() @Inject(Metrics) private readonly metrics: Metrics | null = null,
  ) {
    this.enabled = config.databaseUrl !== undefined;
    this.synced = !this.enabled;
    if (this.enabled) bus.sendWith(this);
  }

  /** Whether the listener is connected now (LISTENing). */
  get connected(): boolean {
    return this.listening;
  }

  /**
   * Whether this replica is in step with the others: its listener has connected once, and the full
   * reload after a reconnect has finished. (A first connection made before the state is first
   * loaded needs no reload: that load follows.)
   */
  get ready(): boolean {
    return this.synced;
  }

  /** Before any module loads its state: LISTEN first, so that nothing is missed between the two. */
  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    this.checkTimer = setInterval(() => void this.check(), SEQUENCE_CHECK_MS);
    this.checkTimer.unref();
    if (await this.connect()) this.synced = true;
    else this.scheduleReconnect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.checkTimer);
    await this.drop();
  }

  /**
   * The replicas running on this database now: the listeners' connections (`arrbiter-listener-*`) in
   * `pg_stat_activity`, this one's counted even while it reconnects. One on the embedded database, and
   * when the count cannot be read. A replica that died without closing its connection counts until
   * PostgreSQL notices (TCP keep-alive).
   */
  async replicas(): Promise<number> {
    if (!this.enabled) return 1;
    try {
      const rows = (await this.dataSource.query(
        `SELECT count(DISTINCT application_name)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name LIKE 'arrbiter-listener-%' AND application_name <> $1`,
        [this.applicationName],
      )) as { n: number }[];
      return 1 + (rows[0]?.n ?? 0);
    } catch {
      return 1;
    }
  }

  async send(change: Change): Promise<void> {
    try {
      await this.dataSource.query(
        `SELECT pg_notify($1, json_build_object('o', $2::text, 't', $3::text, 'i', $4::text, 's', nextval('${CHANGE_SEQUENCE}'))::text)`,
        [CHANGE_CHANNEL, this.instance, change.topic, change.id ?? null],
      );
    } catch (error) {
      // The change is committed; the other replicas reload fully when their listener reconnects.
      this.logger.warn(
        `Could not announce a ${change.topic} change to the other replicas: ${(error as Error).message}`,
      );
    }
  }

  private connection(): ClientConfig {
    const common: ClientConfig = {
      application_name: this.applicationName,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: CONNECT_TIMEOUT_MS,
    };
    return { ...common, connectionString: this.config.databaseListenUrl ?? this.config.databaseUrl };
  }

  /** Connects and LISTENs; false (logged) when that fails. */
  private async connect(): Promise<boolean> {
    const client = new Client(this.connection());
    client.on('notification', (message) => this.receive(message));
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'the connection ended'));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      const last = await this.lastValue(client);
      this.seen = Math.max(this.seen, last);
      this.previousCheck = last;
    } catch (error) {
      if (this.client === client) this.client = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      this.logger.warn(`The change listener could not connect: ${(error as Error).message}`);
      return false;
    }
    this.listening = true;
    this.attempt = 0;
    this.metrics?.listenerConnected.set(1);
    this.logger.log(`Listening for other replicas' changes as ${this.applicationName}`);
    return true;
  }

  private async lastValue(client: Client): Promise<number> {
    const { rows } = await client.query<{ last_value: string; is_called: boolean }>(
      `SELECT last_value, is_called FROM ${CHANGE_SEQUENCE}`,
    );
    return rows[0]?.is_called ? Number(rows[0].last_value) : 0;
  }

  private lost(client: Client, reason: string): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    this.listening = false;
    this.metrics?.listenerConnected.set(0);
    client.removeAllListeners();
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    this.logger.warn(`The change listener lost its connection (${reason}): reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = reconnectDelay(this.attempt);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.reconnect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    if (!(await this.connect())) {
      this.scheduleReconnect();
      return;
    }
    // Whatever changed while the listener was away: everything is read again.
    this.logger.log('The change listener reconnected: reloading the state');
    await this.reloadAll('reconnect');
    this.synced = true;
  }

  private async reloadAll(origin: 'reconnect' | 'check'): Promise<void> {
    try {
      await this.bus.deliver({ topic: 'all', origin });
    } catch (error) {
      this.logger.error(`Reloading the state failed: ${(error as Error).message}`);
    }
  }

  private receive(message: Notification): void {
    if (message.channel !== CHANGE_CHANNEL) return;
    const payload = parsePayload(message.payload);
    if (!payload) {
      this.logger.warn('Ignored a change notification that is not one of ours');
      return;
    }
    if (payload.s > this.seen) this.seen = payload.s;
    if (payload.o === this.instance) return;
    const change: Change = { topic: payload.t, origin: 'remote' };
    if (payload.i !== null) change.id = payload.i;
    this.bus.deliver(change).catch((error: unknown) => {
      this.logger.error(`Applying another replica's ${payload.t} change failed: ${(error as Error).message}`);
    });
  }

  /**
   * Reloads everything when a notification numbered before the previous check has still not
   * arrived (one full interval later, so that one merely in flight is not taken for lost). A query
   * that fails means the connection is gone: reconnect.
   */
  private async check(): Promise<void> {
    const client = this.client;
    if (!client || !this.listening || this.stopped) return;
    let last: number;
    try {
      last = await this.lastValue(client);
    } catch (error) {
      this.lost(client, (error as Error).message);
      return;
    }
    const missing = this.previousCheck > this.seen;
    this.previousCheck = last;
    if (!missing) return;
    this.logger.warn('A change notification did not arrive: reloading the state');
    this.seen = Math.max(this.seen, last);
    await this.reloadAll('check');
  }

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    if (!client) return;
    client.removeAllListeners();
    client.on('error', () => undefined);
    await client.end().catch(() => undefined);
  }
}
