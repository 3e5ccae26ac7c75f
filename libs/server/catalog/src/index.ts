export * from './lib/allowlist';
export * from './lib/catalog';
export * from './lib/http-method';
export * from './lib/openapi';
export * from './lib/route-matcher';
export * from './lib/route-path';
