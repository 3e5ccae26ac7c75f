import { Inject, Injectable, Optional } from '@nestjs/common';
import { ChangeRelay } from '@arrbiter/server/database';
import { ProxyRegistry } from '@arrbiter/server/gateway';
import { Metrics } from '@arrbiter/server/metrics';
import { DataSource } from 'typeorm';

const READY_TIMEOUT_MS = 2_000;

@Injectable()
export class HealthService {
  constructor(
    private readonly dataSource: DataSource,
    @Optional() @Inject(ProxyRegistry) private readonly registry: ProxyRegistry | null = null,
    @Optional() @Inject(ChangeRelay) private readonly relay: ChangeRelay | null = null,
    @Optional() @Inject(Metrics) metrics: Metrics | null = null,
  ) {
    metrics?.probeDatabaseWith(() => this.databaseAnswers());
  }

  /** Whether `SELECT 1` comes back within two seconds. */
  async databaseAnswers(): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
    });
    const probe = this.dataSource.query('SELECT 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Whether the proxy state is loaded and in step with the other replicas: its first full load
   * succeeded, and the change listener has connected (and, if that was after start-up, the full reload
   * that follows has finished).
   */
  stateLoaded(): boolean {
    return (this.registry?.loaded ?? true) && (this.relay?.ready ?? true);
  }
}
