/**
 * The admin API's types by domain (`/api/admin/v1/*`), all re-exported by `@arrbiter/contracts`. A
 * domain file imports only `common` and the domains it builds on, never this index.
 */
export * from './common';
export * from './risk';
export * from './services';
export * from './apps';
export * from './proxies';
export * from './allowlists';
export * from './revisions';
export * from './warnings';
export * from './templates';
export * from './changes';
