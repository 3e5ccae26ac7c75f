import { DataSource, DataSourceOptions } from 'typeorm';

/**
 * A DataSource that also stops what it runs on (the embedded database) once it is destroyed,
 * so that shutdown closes the pool first and the database last, whoever calls `destroy()`.
 */
export class ArrbiterDataSource extends DataSource {
  constructor(
    options: DataSourceOptions,
    private readonly afterDestroy: () => Promise<void> = async () => undefined,
  ) {
    super(options);
  }

  override async destroy(): Promise<void> {
    try {
      if (this.isInitialized) await super.destroy();
    } finally {
      await this.afterDestroy();
    }
  }
}
