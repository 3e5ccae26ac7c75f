export * from './lib/arrbiter-data-source';
export * from './lib/database-logger';
export * from './lib/database.module';
export * from './lib/embedded-database';
export * from './lib/embedded-postgres';
export * from './lib/open-data-source';
export * from './lib/pglite-upgrade';
export * from './lib/change-bus';
