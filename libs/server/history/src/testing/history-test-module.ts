import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import { Test, TestingModule } from '@nestjs/testing';
import { ConfigModule, loadConfig, TestClock } from '@arrbiter/server/config';
import { DatabaseModule } from '@arrbiter/server/database';
import { DataSource, Entity, PrimaryColumn } from 'typeorm';
import { ChangeEntity } from '../lib/entities/change.entity';
import { RevisionEntity } from '../lib/entities/revision.entity';
import { HistoryModule } from '../lib/history.module';

/**
 * The `proxy` table's key, as `RevisionEntity` names it (by entity name): the history domain does not
 * import the proxies domain, which depends on it.
 */
@Entity('proxy')
class ProxyEntity {
  @PrimaryColumn('uuid')
  id!: string;
}

export interface HistoryTestModule {
  moduleRef: TestingModule;
  dataSource: DataSource;
  txHost: TransactionHost<TransactionalAdapterTypeOrm>;
  clock: TestClock;
  /** A stored proxy (with its app and service) that revisions can belong to. */
  addProxy(): Promise<string>;
  close(): Promise<void>;
}

/** HistoryModule on the migrated test database whose environment is given (specs only). */
export async function startHistory(env: NodeJS.ProcessEnv): Promise<HistoryTestModule> {
  const clock = new TestClock();
  const moduleRef = await Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(loadConfig({ ...env, LOG_LEVEL: 'silent', TEMPLATE_REPOSITORY: 'none' }), clock),
      DatabaseModule.forRoot({ entities: [ChangeEntity, RevisionEntity, ProxyEntity] }),
      HistoryModule,
    ],
  }).compile();
  await moduleRef.init();
  const dataSource = moduleRef.get(DataSource);
  let proxies = 0;
  return {
    moduleRef,
    dataSource,
    txHost: moduleRef.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost),
    clock,
    async addProxy() {
      proxies += 1;
      const [app] = await dataSource.query<{ id: string }[]>(
        `INSERT INTO app (name, slug) VALUES ($1, $1) RETURNING id`,
        [`app-${proxies}`],
      );
      const [service] = await dataSource.query<{ id: string }[]>(
        `INSERT INTO service (name, type, base_url, api_key_ciphertext, api_versions, upstream_version)
         VALUES ($1, 'radarr', $1, 'x', '["v3"]', '5.0') RETURNING id`,
        [`http://radarr-${proxies}`],
      );
      const [proxy] = await dataSource.query<{ id: string }[]>(
        `INSERT INTO proxy (app_id, service_id, key_digest, key_ciphertext) VALUES ($1, $2, $3, 'x') RETURNING id`,
        [app.id, service.id, String(proxies).padStart(64, '0')],
      );
      return proxy.id;
    },
    close: () => moduleRef.close(),
  };
}
