import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@arrbiter/server/config';
import { ChangeBus } from '@arrbiter/server/database';
import { ProxyLearningService } from './proxy-learning.service';

/** The longest the timer sleeps before looking again (a deadline set by another replica is found then). */
export const LEARNING_RECHECK_MS = 10 * 60_000;

/**
 * Ends learning mode at its deadline. The gateway stops forwarding refused requests at the deadline by
 * itself; this clears the mode from the proxy and writes the end to recent changes. It sleeps until the
 * next deadline (re-planned whenever a proxy changes), so that an idle server makes no queries.
 */
@Injectable()
export class LearningDeadlines implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LearningDeadlines.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly learning: ProxyLearningService,
    private readonly clock: Clock,
    changes: ChangeBus,
  ) {
    this.unsubscribe = changes.subscribe((change) =>
      change.topic === 'proxies' || change.topic === 'all' ? this.plan() : undefined,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.plan();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    clearTimeout(this.timer);
    await this.running;
  }

  /** Ends what is due, then sleeps until the next deadline; never throws. */
  check(): Promise<void> {
    this.running ??= this.learning
      .endExpired()
      .then(
        (ended) => {
          if (ended.length > 0) this.logger.log(`Learning mode ended for ${ended.length} proxies`);
        },
        (error: unknown) => this.logger.warn(`Could not end learning mode: ${(error as Error).message}`),
      )
      .finally(() => {
        this.running = undefined;
      })
      .then(() => this.plan());
    return this.running;
  }

  private async plan(): Promise<void> {
    if (this.stopped) return;
    let next: Date | null;
    try {
      next = await this.learning.nextDeadline();
    } catch (error) {
      this.logger.warn(`Could not read learning deadlines: ${(error as Error).message}`);
      next = null;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    if (next === null || this.stopped) return;
    const wait = Math.min(Math.max(next.getTime() - this.clock.now(), 0), LEARNING_RECHECK_MS);
    this.timer = setTimeout(() => void this.check(), wait);
    this.timer.unref();
  }
}
