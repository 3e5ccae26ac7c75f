import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AllowlistMap, TemplateDto } from '@arrbiter/contracts';
import { grantsOf } from '@arrbiter/server/catalog';
import { ChangeBus } from '@arrbiter/server/database';
import { In, Repository } from 'typeorm';
import { TemplateEntity } from './entities/template.entity';
import { TemplateAppCounts } from './template-app-counts';
import type { TemplateSet } from './template-files';

/** A template as the other domains read it (the entity class stays inside this lib). */
export type TemplateRow = Pick<TemplateEntity, keyof TemplateEntity>;

export function toTemplateDto(template: TemplateEntity, appCount: number): TemplateDto {
  return {
    id: template.id,
    name: template.name,
    source: template.source,
    removed: template.removed,
    blocks: template.blocks,
    grantCounts: Object.fromEntries(
      Object.entries(template.blocks).map(([type, block]) => [type, grantsOf(block).length]),
    ),
    appCount,
    createdAt: template.createdAt.toISOString(),
    updatedAt: template.updatedAt.toISOString(),
  };
}

/** Templates: the stored set, its blocks for the allowlists, and the admin API's views. */
@Injectable()
export class TemplatesService {
  constructor(
    @InjectRepository(TemplateEntity) private readonly templateRepository: Repository<TemplateEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly changes: ChangeBus,
    private readonly appCounts: TemplateAppCounts,
  ) {}

  /** The `template` repository, inside the caller's transaction when there is one. */
  private get templates(): Repository<TemplateEntity> {
    return this.txHost.tx.withRepository(this.templateRepository);
  }

  async list(): Promise<TemplateDto[]> {
    const [templates, counts] = await Promise.all([
      this.templates.find({ order: { name: 'ASC' } }),
      this.appCounts.countFor(),
    ]);
    return templates.map((t) => toTemplateDto(t, counts.get(t.id) ?? 0));
  }

  async get(id: string): Promise<TemplateDto> {
    const template = await this.find(id);
    return toTemplateDto(template, (await this.appCounts.countFor([id])).get(id) ?? 0);
  }

  /** The template, or 404. */
  async find(id: string): Promise<TemplateRow> {
    const template = await this.templates.findOneBy({ id });
    if (!template) throw new NotFoundException('No such template');
    return template;
  }

  /** Every stored template, by name (for a sync's plan), in the caller's transaction. */
  stored(): Promise<TemplateRow[]> {
    return this.templates.find({ order: { name: 'ASC' } });
  }

  /** Marks repository templates removed upstream (apps still use them), in the caller's transaction. */
  async markRemoved(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.templates.update({ id: In([...ids]) }, { removed: true });
  }

  /** Deletes templates no app uses, in the caller's transaction. */
  async deleteUnused(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.templates.delete({ id: In([...ids]) });
  }

  /** Stores a local template (which syncs never overwrite), in the caller's transaction. */
  createLocal(name: string, blocks: Record<string, AllowlistMap>): Promise<TemplateRow> {
    const templates = this.templates;
    return templates.save(templates.create({ name, source: 'local', removed: false, blocks }));
  }

  /** Replaces a local template's blocks, in the caller's transaction; the caller publishes `templates`. */
  async replaceLocalBlocks(id: string, blocks: Record<string, AllowlistMap>): Promise<void> {
    await this.templates.update({ id, source: 'local' }, { blocks });
  }

  /** Whether any template is stored. */
  async any(): Promise<boolean> {
    return (await this.templates.count()) > 0;
  }

  /** The names of the templates with these ids (ids of no template are left out). */
  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.templates.find({
      select: { id: true, name: true },
      where: { id: In([...new Set(ids)]) },
    });
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** The block a template grants a service type (empty for no template or no block). */
  async block(templateId: string | null, serviceType: string): Promise<AllowlistMap> {
    if (templateId === null) return {};
    const template = await this.templates.findOneBy({ id: templateId });
    return template?.blocks[serviceType] ?? {};
  }

  /** Every template's blocks, by id (for the proxy's in-memory state). */
  async allBlocks(): Promise<Map<string, Record<string, AllowlistMap>>> {
    const rows = await this.templates.find({ select: { id: true, blocks: true } });
    return new Map(rows.map((row) => [row.id, row.blocks]));
  }

  /**
   * Stores repository templates by name (new ones created, existing ones' blocks replaced and no longer
   * marked removed) in the caller's transaction; local templates of the same name are left alone.
   * Callers publish the `templates` change after their transaction commits.
   */
  async upsertRepositoryTemplates(set: TemplateSet): Promise<TemplateRow[]> {
    const repository = this.templates;
    const existing = new Map(
      (await repository.findBy({ name: In([...set.keys()]) })).map((template) => [template.name, template]),
    );
    const saved: TemplateEntity[] = [];
    for (const [name, blocks] of set) {
      const known = existing.get(name);
      if (known?.source === 'local') continue;
      saved.push(
        await repository.save(
          known
            ? Object.assign(known, { blocks, removed: false })
            : repository.create({ name, source: 'repository', removed: false, blocks }),
        ),
      );
    }
    return saved;
  }

  /** Tells the in-memory proxy state that templates changed. */
  published(): Promise<void> {
    return this.changes.publish('templates');
  }
}
