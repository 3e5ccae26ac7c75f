import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ProxiesService } from './proxies.service';

/** How often deadlines are checked (the gateway itself never forwards past a deadline). */
export const LEARNING_CHECK_MS = 15_000;

/**
 * Ends learning mode at its deadline: the gateway stops forwarding refused requests at the deadline
 * by itself; this clears the mode from the proxy and writes the end to recent changes.
 */
@Injectable()
export class LearningDeadlines implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LearningDeadlines.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly proxies: ProxiesService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.check(), LEARNING_CHECK_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Ends what is due; never throws (a failure is logged and retried at the next check). */
  check(): Promise<void> {
    this.running ??= this.proxies
      .endExpiredLearning()
      .then(
        (ended) => {
          if (ended.length > 0) this.logger.log(`Learning mode ended for ${ended.length} proxies`);
        },
        (error: unknown) => this.logger.warn(`Could not end learning mode: ${(error as Error).message}`),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}
