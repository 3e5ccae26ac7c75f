export * from './lib/fake-servarr';
export * from './lib/openapi';
