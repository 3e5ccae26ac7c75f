import { AppConfig } from '@arrbiter/server/config';
import { openDataSource, runMigrationsLocked } from '@arrbiter/server/database';
import { ENTITIES } from '../app/entities';

/** `main.js migrate`: applies pending migrations and exits (Kubernetes runs it as a Job). */
export async function migrate(config: AppConfig): Promise<void> {
  const dataSource = await openDataSource(config, { entities: ENTITIES, migrate: false });
  try {
    const applied = await runMigrationsLocked(dataSource);
    console.log(
      applied.length === 0
        ? 'Database is up to date.'
        : `Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`,
    );
  } finally {
    await dataSource.destroy();
  }
}
