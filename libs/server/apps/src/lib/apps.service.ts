import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type { AppDto } from '@arrbiter/contracts';
import { ChangeBus } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { isUniqueViolation } from '@arrbiter/server/http';
import { TemplateEntity } from '@arrbiter/server/templates';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { CreateAppDto, UpdateAppDto } from './dto/create-app.dto';
import { AppEntity } from './entities/app.entity';

export function toAppDto(app: AppEntity, proxyCount: number, templateName: string | null): AppDto {
  return {
    id: app.id,
    name: app.name,
    slug: app.slug,
    templateId: app.templateId,
    templateName,
    active: app.active,
    proxyCount,
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  };
}

@Injectable()
export class AppsService {
  private readonly apps: Repository<AppEntity>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ChangeBus,
    private readonly audit: ChangesService,
  ) {
    this.apps = dataSource.getRepository(AppEntity);
  }

  async list(): Promise<AppDto[]> {
    const [apps, counts, names] = await Promise.all([
      this.apps.find({ order: { name: 'ASC', createdAt: 'ASC' } }),
      this.proxyCounts(),
      this.templateNames(),
    ]);
    return apps.map((app) => toAppDto(app, counts.get(app.id) ?? 0, this.nameOf(app, names)));
  }

  async get(id: string): Promise<AppDto> {
    const app = await this.find(id);
    const [counts, names] = await Promise.all([this.proxyCounts(id), this.templateNames()]);
    return toAppDto(app, counts.get(id) ?? 0, this.nameOf(app, names));
  }

  async create(dto: CreateAppDto, actor: string): Promise<AppDto> {
    const app = await this.dataSource.transaction(async (manager) => {
      const template = await this.templateOf(dto.templateId, manager);
      const saved = await this.save(manager, manager.getRepository(AppEntity).create(dto));
      await this.audit.record(
        {
          actor,
          action: 'app.created',
          objectType: 'app',
          objectId: saved.id,
          objectName: saved.name,
          appId: saved.id,
          summary: `App "${saved.name}" (/proxy/${saved.slug}) created with ${template ? `template "${template.name}"` : 'no template'}, ${saved.active ? 'active' : 'inactive'}`,
        },
        manager,
      );
      return saved;
    });
    await this.changes.publish('apps', app.id);
    return this.get(app.id);
  }

  async update(id: string, dto: UpdateAppDto, actor: string): Promise<AppDto> {
    await this.dataSource.transaction(async (manager) => {
      const app = await this.find(id, manager);
      const before = { ...app };
      const template = dto.templateId !== undefined ? await this.templateOf(dto.templateId, manager) : undefined;
      Object.assign(app, dto);
      await this.save(manager, app);
      const changed: string[] = [];
      if (before.name !== app.name) changed.push(`renamed "${before.name}" → "${app.name}"`);
      if (before.slug !== app.slug) changed.push(`slug ${before.slug} → ${app.slug}`);
      if (before.templateId !== app.templateId) changed.push(template ? `template "${template.name}"` : 'no template');
      if (before.active !== app.active) changed.push(app.active ? 'activated' : 'deactivated');
      await this.audit.record(
        {
          actor,
          action: 'app.updated',
          objectType: 'app',
          objectId: id,
          objectName: app.name,
          appId: id,
          summary: `App "${app.name}": ${changed.length > 0 ? changed.join(', ') : 'saved without changes'}`,
        },
        manager,
      );
    });
    await this.changes.publish('apps', id);
    return this.get(id);
  }

  /** Deletes the app and its proxies (their keys stop working at once). */
  async remove(id: string, actor: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const app = await this.find(id, manager);
      await manager.getRepository(AppEntity).delete({ id });
      await this.audit.record(
        {
          actor,
          action: 'app.deleted',
          objectType: 'app',
          objectId: id,
          objectName: app.name,
          appId: id,
          summary: `App "${app.name}" (/proxy/${app.slug}) deleted with its proxies and keys`,
        },
        manager,
      );
    });
    await this.changes.publish('apps', id);
  }

  /** The app, or 404. */
  async find(id: string, manager: EntityManager = this.dataSource.manager): Promise<AppEntity> {
    const app = await manager.getRepository(AppEntity).findOneBy({ id });
    if (!app) throw new NotFoundException('No such app');
    return app;
  }

  private async save(manager: EntityManager, app: AppEntity): Promise<AppEntity> {
    try {
      return await manager.getRepository(AppEntity).save(app);
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictException(`The slug "${app.slug}" is already used by another app`);
      throw error;
    }
  }

  /** The chosen template (null for "no template"); 400 when it does not exist. */
  private async templateOf(templateId: string | null, manager: EntityManager): Promise<TemplateEntity | null> {
    if (templateId === null) return null;
    const template = await manager.getRepository(TemplateEntity).findOneBy({ id: templateId });
    if (!template) throw new BadRequestException([`templateId ${templateId} is not a known template`]);
    return template;
  }

  private async templateNames(): Promise<Map<string, string>> {
    const rows = await this.dataSource.getRepository(TemplateEntity).find({ select: { id: true, name: true } });
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  private nameOf(app: AppEntity, names: Map<string, string>): string | null {
    return app.templateId === null ? null : (names.get(app.templateId) ?? null);
  }

  private async proxyCounts(appId?: string): Promise<Map<string, number>> {
    const rows: { app_id: string; count: string }[] = await this.dataSource.query(
      appId
        ? 'SELECT app_id, count(*) AS count FROM proxy WHERE app_id = $1 GROUP BY app_id'
        : 'SELECT app_id, count(*) AS count FROM proxy GROUP BY app_id',
      appId ? [appId] : [],
    );
    return new Map(rows.map((r) => [r.app_id, Number(r.count)]));
  }
}
