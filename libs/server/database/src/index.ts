export * from './lib/server-database.module';
