export * from './lib/allowlist';
export * from './lib/learning';
export * from './lib/revision-summary';
export { diffGrants, effectiveAllowlist, withGrants } from '@arrbiter/shared/allowlist-rules';
