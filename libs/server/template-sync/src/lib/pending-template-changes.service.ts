import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AppliedTemplateChangeDto, PendingTemplateChangeDto, TemplateBlockChange } from '@arrbiter/contracts';
import { AppsService } from '@arrbiter/server/apps';
import { Clock } from '@arrbiter/server/config';
import { TEMPLATE_SYNC_LOCK, tryTransactionLock } from '@arrbiter/server/database';
import { ChangesService, RevisionsService } from '@arrbiter/server/history';
import { PendingTemplateChanges, TemplatesService } from '@arrbiter/server/templates';
import { In, IsNull, Repository } from 'typeorm';
import { PendingTemplateChangeEntity } from './entities/pending-template-change.entity';
import { Blocks, TemplateImpact, withAdditions } from './template-impact';

/** A held change as the sync reads it (the entity class stays inside this lib). */
export type PendingTemplateChangeRow = Omit<PendingTemplateChangeEntity, 'template'>;

/** What a held change adds, counted in grants. */
function grantCount(blocks: readonly TemplateBlockChange[]): number {
  return blocks.reduce((sum, block) => sum + block.added.length, 0);
}

/**
 * Widenings of templates in use, held by a sync for an editor (security 3): listed with what they add
 * and whom they reach, applied (recorded as `template-sync` revisions, as a sync would) or dismissed.
 */
@Injectable()
export class PendingTemplateChangesService extends PendingTemplateChanges {
  constructor(
    @InjectRepository(PendingTemplateChangeEntity)
    private readonly pendingRepository: Repository<PendingTemplateChangeEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly templates: TemplatesService,
    private readonly apps: AppsService,
    private readonly impact: TemplateImpact,
    private readonly revisions: RevisionsService,
    private readonly audit: ChangesService,
    private readonly clock: Clock,
  ) {
    super();
  }

  /** The `pending_template_change` repository, inside the caller's transaction when there is one. */
  private get rows(): Repository<PendingTemplateChangeEntity> {
    return this.txHost.tx.withRepository(this.pendingRepository);
  }

  /** Every held change (dismissed ones too) by template id, in the caller's transaction (a sync's plan). */
  async stored(): Promise<Map<string, PendingTemplateChangeRow>> {
    return new Map((await this.rows.find()).map((row) => [row.templateId, row]));
  }

  /** Holds a template's widening, replacing what was held for it, in the caller's transaction. */
  async hold(templateId: string, blocks: TemplateBlockChange[], commit: string | null): Promise<void> {
    await this.rows.upsert(
      { templateId, blocks, commit, detectedAt: this.clock.date(), dismissedAt: null, dismissedBy: null },
      ['templateId'],
    );
  }

  /** Drops the held changes of these templates, in the caller's transaction. */
  async drop(templateIds: readonly string[]): Promise<void> {
    if (templateIds.length > 0) await this.rows.delete({ templateId: In([...templateIds]) });
  }

  async list(): Promise<PendingTemplateChangeDto[]> {
    const rows = await this.rows.find({ where: { dismissedAt: IsNull() }, order: { detectedAt: 'ASC' } });
    if (rows.length === 0) return [];
    const templates = new Map((await this.templates.stored()).map((t) => [t.id, t]));
    const apps = await this.apps.ofTemplates(rows.map((r) => r.templateId));
    const result: PendingTemplateChangeDto[] = [];
    for (const row of rows) {
      const template = templates.get(row.templateId);
      if (!template) continue;
      const impact = await this.impact.of(
        new Map([[template.id, { before: template.blocks, after: withAdditions(template.blocks, row.blocks) }]]),
      );
      result.push({
        templateId: template.id,
        templateName: template.name,
        blocks: row.blocks,
        commit: row.commit,
        detectedAt: row.detectedAt.toISOString(),
        apps: apps
          .filter((a) => a.templateId === template.id)
          .map((a) => ({ appId: a.id, appName: a.name }))
          .sort((a, b) => a.appName.localeCompare(b.appName)),
        proxies: impact
          .filter((p) => p.change.added.length > 0)
          .map(({ change, serviceType }) => ({
            proxyId: change.proxyId,
            appId: change.appId,
            appName: change.appName,
            serviceType,
            added: change.added,
          })),
      });
    }
    return result;
  }

  /** Applies a held widening to the template and, through it, to its proxies (a revision each). */
  async apply(templateId: string, actor: string): Promise<AppliedTemplateChangeDto> {
    const proxies = await this.txHost.withTransaction(async () => {
      await this.lock();
      const row = await this.held(templateId);
      const template = await this.templates.find(templateId);
      const after: Blocks = withAdditions(template.blocks, row.blocks);
      const impact = await this.impact.of(new Map([[template.id, { before: template.blocks, after }]]));
      await this.templates.upsertRepositoryTemplates(new Map([[template.name, after]]));
      await this.rows.delete({ templateId });
      for (const { revision } of impact) await this.revisions.record({ ...revision, author: actor });
      const count = grantCount(row.blocks);
      await this.audit.record({
        actor,
        action: 'template.pending-applied',
        objectType: 'template',
        objectId: template.id,
        objectName: template.name,
        summary: `Held repository change to template "${template.name}" applied: ${count} grant${count === 1 ? '' : 's'} added; ${impact.length} prox${impact.length === 1 ? 'y' : 'ies'}' allowlists changed`,
      });
      return impact.map(({ change }) => change);
    });
    await this.templates.published();
    return { template: await this.templates.get(templateId), proxies };
  }

  /** Dismisses a held widening: nothing is granted, and a sync raises it again only if the repository changes it. */
  async dismiss(templateId: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      await this.lock();
      const row = await this.held(templateId);
      const template = await this.templates.find(templateId);
      await this.rows.update({ templateId }, { dismissedAt: this.clock.date(), dismissedBy: actor.slice(0, 200) });
      const count = grantCount(row.blocks);
      await this.audit.record({
        actor,
        action: 'template.pending-dismissed',
        objectType: 'template',
        objectId: template.id,
        objectName: template.name,
        summary: `Held repository change to template "${template.name}" dismissed: ${count} grant${count === 1 ? '' : 's'} not added`,
      });
    });
  }

  /** The template's held (not dismissed) change, or 404. */
  private async held(templateId: string): Promise<PendingTemplateChangeRow> {
    const row = await this.rows.findOneBy({ templateId, dismissedAt: IsNull() });
    if (!row) throw new NotFoundException('This template has no pending change');
    return row;
  }

  /** The template-sync lock of this transaction: a sync and an apply never interleave (409 while one runs). */
  private async lock(): Promise<void> {
    if (!(await tryTransactionLock(this.txHost.tx, TEMPLATE_SYNC_LOCK)))
      throw new ConflictException('A template sync is running: try again when it has finished');
  }
}
