export * from './lib/server-auth.module';
