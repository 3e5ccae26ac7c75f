/**
 * Every entity of every domain: what the DataSource maps and what migrations must match. The list
 * lives in `libs/server/schema`, which `tools/db/generate-migration.ts` reads too.
 */
export { ENTITIES } from '@arrbiter/server/schema';
