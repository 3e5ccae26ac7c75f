import { HttpException, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { SecretBox } from '@arrbiter/server/crypto';
import { SERVICE_CHECK_LOCK, withAdvisoryLock } from '@arrbiter/server/database';
import { Notifier } from '@arrbiter/server/notifications';
import { DataSource, Repository } from 'typeorm';
import { ServiceHealthEntity } from './entities/service-health.entity';
import { ServarrClient } from './servarr-client';
import { SERVICE_KEY_PURPOSE, ServiceRow, ServicesService } from './services.service';

/** Services checked at once. */
const CONCURRENCY = 4;

/** What one check of a service found. */
export interface Reachability {
  reachable: boolean;
  error: string | null;
}

/** A service whose state changed in a round. */
export interface ReachabilityChange {
  serviceId: string;
  reachable: boolean;
}

/**
 * Checks every service's status endpoint (`/api/{v}/system/status` with its key) every
 * `SERVICE_CHECK_INTERVAL_SECONDS`, and raises `service.unreachable` / `service.recovered` when a
 * service's state changes (a service never checked before counts as reachable: it answered when it
 * was registered). One replica at a time: a round holds `SERVICE_CHECK_LOCK`, and a replica skips its
 * round when another one checked within the last half interval. The state is stored (`service_health`),
 * so a restart raises nothing again.
 */
@Injectable()
export class ServiceReachabilityCheck implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ServiceReachabilityCheck.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    @InjectRepository(ServiceHealthEntity) private readonly health: Repository<ServiceHealthEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly services: ServicesService,
    private readonly client: ServarrClient,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly notifier: Notifier,
  ) {}

  private get intervalMs(): number {
    return this.config.serviceCheckIntervalSeconds * 1000;
  }

  onApplicationBootstrap(): void {
    if (this.intervalMs > 0) this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.scheduled(), this.intervalMs);
    this.timer.unref();
  }

  private async scheduled(): Promise<void> {
    this.running = this.check().catch((error: unknown) =>
      this.logger.warn(`Could not check the services: ${(error as Error).message}`),
    );
    await this.running;
    this.running = undefined;
    this.schedule();
  }

  /**
   * One round: checks every service and stores what it found; answers the services whose state
   * changed, or null when another replica holds the round or checked within the last half interval.
   */
  async check(): Promise<ReachabilityChange[] | null> {
    const round = await withAdvisoryLock(this.dataSource, SERVICE_CHECK_LOCK, async () => {
      const last = await this.health
        .createQueryBuilder('h')
        .select('max(h.checked_at)', 'at')
        .getRawOne<{ at: Date | string | null }>();
      if (last?.at && this.clock.now() - new Date(last.at).getTime() < this.intervalMs / 2) return null;
      const services = await this.services.all();
      const known = new Map((await this.health.find()).map((row) => [row.serviceId, row]));
      const found = new Map<string, Reachability>();
      const queue = [...services];
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
          for (let service = queue.shift(); service; service = queue.shift())
            found.set(service.id, await this.probe(service));
        }),
      );
      const changes: ReachabilityChange[] = [];
      for (const service of services) {
        const result = found.get(service.id);
        if (result) {
          const change = await this.store(service, known.get(service.id), result);
          if (change) changes.push(change);
        }
      }
      return changes;
    });
    return round.ran ? round.result : null;
  }

  /** Whether the service's status endpoint answers 200 with its key now. */
  async probe(service: ServiceRow): Promise<Reachability> {
    try {
      const apiKey = this.secrets.decrypt(service.apiKeyCiphertext, SERVICE_KEY_PURPOSE);
      const version = service.apiVersions[0] ?? 'v3';
      const { status } = await this.client.getJson(service.baseUrl, `/api/${version}/system/status`, apiKey);
      return status === 200
        ? { reachable: true, error: null }
        : { reachable: false, error: `system/status answered HTTP ${status}` };
    } catch (error) {
      const message = error instanceof HttpException ? error.message : (error as Error).message;
      return { reachable: false, error: message.slice(0, 300) };
    }
  }

  private async store(
    service: ServiceRow,
    before: ServiceHealthEntity | undefined,
    now: Reachability,
  ): Promise<ReachabilityChange | null> {
    const at = this.clock.date();
    const changed = before ? before.reachable !== now.reachable : !now.reachable;
    try {
      await this.health.upsert(
        {
          serviceId: service.id,
          reachable: now.reachable,
          error: now.error,
          checkedAt: at,
          since: before && before.reachable === now.reachable ? before.since : at,
        },
        ['serviceId'],
      );
    } catch (error) {
      // Deleted during the round (the foreign key refuses its row): nothing to tell.
      this.logger.warn(`Could not store the reachability of service ${service.id}: ${(error as Error).message}`);
      return null;
    }
    if (!changed) return null;
    const subject = { id: service.id, name: service.name, type: service.type };
    if (now.reachable) {
      this.logger.log(`Service "${service.name}" is reachable again`);
      this.notifier.raise({ type: 'service.recovered', service: subject, downSince: before?.since ?? null });
    } else {
      this.logger.warn(`Service "${service.name}" is unreachable: ${now.error ?? 'no answer'}`);
      this.notifier.raise({ type: 'service.unreachable', service: subject, error: now.error ?? 'no answer' });
    }
    return { serviceId: service.id, reachable: now.reachable };
  }
}
