import { DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@arrbiter/server/config';
import { ClsModule } from 'nestjs-cls';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import { ArrbiterDataSource } from './arrbiter-data-source';
import { ChangeBus } from './change-bus';
import { ChangeRelay } from './change-relay';
import { DatabaseLogger } from './database-logger';
import { openDataSource } from './open-data-source';

export interface DatabaseModuleOptions {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  /** Run pending migrations at start-up (default true). */
  migrate?: boolean;
}

/**
 * Registers the last writes (write-behind queues) to run on shutdown once the HTTP server has finished
 * its requests, before the pool closes (and the embedded database after it): `TypeOrmModule` destroys
 * the DataSource on application shutdown, and `ArrbiterDataSource.destroy` runs these drains first.
 */
@Injectable()
export class DatabaseLifecycle {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  beforeClose(drain: () => Promise<void>): void {
    if (!(this.dataSource instanceof ArrbiterDataSource)) {
      throw new Error('DatabaseLifecycle needs the ArrbiterDataSource that DatabaseModule opens');
    }
    this.dataSource.beforeDestroy(drain);
  }
}

/**
 * The one DataSource of the process (TypeORM, `postgres` driver) for every database user, admin
 * sessions included, through `@nestjs/typeorm`: each domain module registers its own entities with
 * `TypeOrmModule.forFeature` and injects their repositories. Transactions that span services go
 * through `@nestjs-cls/transactional` (`TransactionHost`), started by admin-side services only: no
 * CLS middleware, guard or interceptor runs per request, so the proxy route pays nothing for it
 * (`apps/server/src/app/proxy.spec.ts` checks that the proxy pipeline runs its own interceptor alone).
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    const logger = new DatabaseLogger();
    // TypeOrmModule asks its options factory for the configuration, then the DataSource factory (which
    // only sees those options) for the DataSource: the latter opens it from the former's AppConfig.
    let config: AppConfig | undefined;
    const open = async (): Promise<ArrbiterDataSource> => {
      if (!config) throw new Error('DatabaseModule: the DataSource was asked for before the configuration');
      return openDataSource(config, { entities: options.entities, migrate: options.migrate ?? true, logger });
    };
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (appConfig: AppConfig) => {
            config = appConfig;
            // The DataSource is opened (and migrated) once: a failure stops the start-up, no retry.
            return { type: 'postgres', retryAttempts: 1, toRetry: () => false };
          },
          dataSourceFactory: open,
        }),
        // The plugin alone, not `ClsModule.forRoot`: that one also registers a global guard and a global
        // interceptor, no-ops unless a CLS context is mounted per request, which Nest would still run on
        // every call of every route, the proxy route's included (an interceptor costs it a layer of rxjs
        // per call: docs/performance-log.md). Transactions open their own CLS context.
        ClsModule.registerPlugins([
          new ClsPluginTransactional({
            adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
          }),
        ]),
      ],
      providers: [{ provide: DatabaseLogger, useValue: logger }, DatabaseLifecycle, ChangeBus, ChangeRelay],
      exports: [DatabaseLogger, ChangeBus, ChangeRelay, DatabaseLifecycle],
    };
  }
}
