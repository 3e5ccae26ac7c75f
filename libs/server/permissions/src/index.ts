export * from './lib/allowlist';
export * from './lib/learning';
export * from './lib/revision-summary';
export * from './lib/route-risk';
export { diffGrants, effectiveAllowlist, withGrants } from '@arrbiter/shared/allowlist-rules';
