export * from './lib/fake-servarr';
export * from './lib/openapi';
export * from './lib/free-port';
export * from './lib/flooding-server';
export * from './lib/faulty-upstream';
