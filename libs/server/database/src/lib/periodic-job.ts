import type { Logger } from '@nestjs/common';
import type { DatabaseLifecycle } from './database.module';

export interface PeriodicJobOptions {
  /** What the job does, for its failure line: "delete old usage counters". */
  what: string;
  /** Delay of the first run after `start()`, then of every next run after the previous one ends. */
  firstMs: number;
  intervalMs: number;
  /** One run; the line it answers (if any) is logged at `log` level. */
  run: () => Promise<string | undefined>;
  logger: Logger;
}

/**
 * A background job of the database (the retention purges): run `firstMs` after `start()`, then every
 * `intervalMs` after the previous run ended, until the database closes. A run still going then is
 * awaited before the database closes; a failed run is logged and the next one planned as usual.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    lifecycle: DatabaseLifecycle,
    private readonly options: PeriodicJobOptions,
  ) {
    lifecycle.beforeClose(async () => {
      this.stopped = true;
      clearTimeout(this.timer);
      await this.running;
    });
  }

  start(): void {
    this.plan(this.options.firstMs);
  }

  private plan(delayMs: number): void {
    if (this.stopped) return;
    const { run, logger, what, intervalMs } = this.options;
    this.timer = setTimeout(() => {
      this.running = run()
        .then((line) => {
          if (line) logger.log(line);
        })
        .catch((error: unknown) => logger.warn(`Could not ${what}: ${(error as Error).message}`))
        .finally(() => {
          this.running = undefined;
          this.plan(intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
