export * from './lib/allowlist';
export * from './lib/allowlist-draft';
export * from './lib/http-method';
export * from './lib/route-template';
