import { AUTH_ENTITIES } from '@arrbiter/server/auth';

/** Every entity of every domain: what the DataSource maps and what migrations must match. */
export const ENTITIES = [...AUTH_ENTITIES];
