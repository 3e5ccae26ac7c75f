import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Global, Injectable, Module } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { TemplateAppCounts } from '@arrbiter/server/templates';
import { In, Repository } from 'typeorm';
import { AppEntity } from './entities/app.entity';

/** `TemplateAppCounts` over the `app` table: one grouped count. */
@Injectable()
export class AppCountsOfTemplates extends TemplateAppCounts {
  constructor(
    @InjectRepository(AppEntity) private readonly apps: Repository<AppEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {
    super();
  }

  async countFor(templateIds?: readonly string[]): Promise<Map<string, number>> {
    if (templateIds?.length === 0) return new Map();
    const qb = this.txHost.tx
      .withRepository(this.apps)
      .createQueryBuilder('a')
      .select('a.template_id', 'templateId')
      .addSelect('count(*)', 'count')
      .where('a.template_id IS NOT NULL');
    if (templateIds) qb.andWhere({ templateId: In([...new Set(templateIds)]) });
    const rows = await qb.groupBy('a.template_id').getRawMany<{ templateId: string; count: string | number }>();
    // count(*) is a bigint: `pg` hands it over as a string.
    return new Map(rows.map((row) => [row.templateId, Number(row.count)]));
  }
}

/**
 * Provides `TemplateAppCounts` to the templates module, which cannot import this one (it is imported
 * by it): global, so that the port reaches it without a cycle.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AppEntity])],
  providers: [{ provide: TemplateAppCounts, useClass: AppCountsOfTemplates }],
  exports: [TemplateAppCounts],
})
export class TemplateAppCountsModule {}
