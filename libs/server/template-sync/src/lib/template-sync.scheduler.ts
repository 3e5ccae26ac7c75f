import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpException } from '@nestjs/common';
import { SYSTEM_ACTOR } from '@arrbiter/server/history';
import { TemplatesService } from '@arrbiter/server/templates';
import { RepositorySettingsService } from './repository-settings.service';
import { TemplateSyncService } from './template-sync.service';

/** The first sync of a server that has no templates yet, shortly after start-up. */
export const FIRST_SYNC_DELAY_MS = 10_000;
const MINUTE = 60_000;

/**
 * Syncs templates every `intervalMinutes` (0: only on request), measured from the last sync; a
 * server that has never synced and has no templates syncs soon after start-up (unless the interval is
 * 0). Replans when the settings change.
 */
@Injectable()
export class TemplateSyncScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TemplateSyncScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;
  private unsubscribe?: () => void;

  constructor(
    private readonly templates: TemplatesService,
    private readonly settings: RepositorySettingsService,
    private readonly sync: TemplateSyncService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.unsubscribe = this.settings.onChange(() => void this.plan());
    await this.plan();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    await this.running;
  }

  /** Sets the timer for the next automatic sync, if any. Never throws. */
  async plan(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    try {
      const status = await this.settings.status();
      if (status.url === '' || status.intervalMinutes === 0) return;
      const hasTemplates = await this.templates.any();
      let delay: number;
      if (!hasTemplates && status.lastSync === null) delay = FIRST_SYNC_DELAY_MS;
      else {
        const last = status.lastSync ? Date.parse(status.lastSync.at) : 0;
        delay = Math.max(FIRST_SYNC_DELAY_MS, last + status.intervalMinutes * MINUTE - Date.now());
      }
      this.timer = setTimeout(() => void this.run(), Math.min(delay, 2 ** 31 - 1));
      this.timer.unref();
    } catch (error) {
      this.logger.warn(`Could not plan the next template sync: ${(error as Error).message}`);
    }
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    this.running = this.sync.sync({ dryRun: false, actor: SYSTEM_ACTOR }).then(
      (report) =>
        this.logger.log(
          `Templates synced: ${report.added.length} added, ${report.changed.length} changed, ${report.problems.length} files skipped`,
        ),
      (error: unknown) =>
        this.logger.warn(
          `Automatic template sync failed: ${error instanceof HttpException ? error.message : (error as Error).message}`,
        ),
    );
    await this.running;
    this.running = undefined;
    await this.plan();
  }
}
