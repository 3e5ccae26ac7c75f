export * from './lib/admin-api-document';
export * from './lib/api-description';
export * from './lib/api-docs.module';
