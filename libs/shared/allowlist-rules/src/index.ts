export * from './lib/allowlist';
export * from './lib/http-method';
export * from './lib/route-template';
