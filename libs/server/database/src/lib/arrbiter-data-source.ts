import { DataSource, DataSourceOptions } from 'typeorm';

/**
 * A DataSource that runs the last writes registered with `beforeDestroy` (write-behind queues) while
 * its pool is still open, and stops what it runs on (the embedded database) once it is destroyed: on
 * shutdown the drains run first, then the pool closes, then the database, whoever calls `destroy()`.
 */
export class ArrbiterDataSource extends DataSource {
  private readonly drains: (() => Promise<void>)[] = [];

  constructor(
    options: DataSourceOptions,
    private readonly afterDestroy: () => Promise<void> = async () => undefined,
  ) {
    super(options);
  }

  /** Runs `drain` (once, in registration order) before the pool closes. */
  beforeDestroy(drain: () => Promise<void>): void {
    this.drains.push(drain);
  }

  override async destroy(): Promise<void> {
    try {
      if (this.isInitialized) {
        try {
          for (const drain of this.drains.splice(0)) await drain();
        } finally {
          await super.destroy();
        }
      }
    } finally {
      await this.afterDestroy();
    }
  }
}
