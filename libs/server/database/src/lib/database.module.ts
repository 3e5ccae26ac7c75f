import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import { ChangeBus } from './change-bus';
import { DatabaseLogger } from './database-logger';
import { openDataSource } from './open-data-source';

export interface DatabaseModuleOptions {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  /** Run pending migrations at start-up (default true). */
  migrate?: boolean;
}

/**
 * Closes the pool (and then the embedded database) once the HTTP server has finished its requests,
 * after the last writes registered with `beforeClose` (write-behind queues) have run.
 */
@Injectable()
export class DatabaseLifecycle implements OnApplicationShutdown {
  private readonly drains: (() => Promise<void>)[] = [];

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  beforeClose(drain: () => Promise<void>): void {
    this.drains.push(drain);
  }

  async onApplicationShutdown(): Promise<void> {
    for (const drain of this.drains) await drain();
    await this.dataSource.destroy();
  }
}

/**
 * The one DataSource of the process (TypeORM, `postgres` driver) for every database user,
 * admin sessions included. Domain services inject `DataSource` and take their repositories from it.
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        { provide: DatabaseLogger, useValue: new DatabaseLogger() },
        {
          provide: DataSource,
          inject: [AppConfig, DatabaseLogger],
          useFactory: (config: AppConfig, logger: DatabaseLogger) =>
            openDataSource(config, { entities: options.entities, migrate: options.migrate ?? true, logger }),
        },
        DatabaseLifecycle,
        ChangeBus,
      ],
      exports: [DataSource, DatabaseLogger, ChangeBus, DatabaseLifecycle],
    };
  }
}
