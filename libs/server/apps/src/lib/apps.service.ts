import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type { AppDto } from '@arrbiter/contracts';
import { ChangeBus } from '@arrbiter/server/database';
import { isUniqueViolation } from '@arrbiter/server/http';
import { DataSource, Repository } from 'typeorm';
import { CreateAppDto, UpdateAppDto } from './dto/create-app.dto';
import { AppEntity } from './entities/app.entity';

export function toAppDto(app: AppEntity, proxyCount: number): AppDto {
  return {
    id: app.id,
    name: app.name,
    slug: app.slug,
    templateId: app.templateId,
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
  ) {
    this.apps = dataSource.getRepository(AppEntity);
  }

  async list(): Promise<AppDto[]> {
    const [apps, counts] = await Promise.all([
      this.apps.find({ order: { name: 'ASC', createdAt: 'ASC' } }),
      this.proxyCounts(),
    ]);
    return apps.map((app) => toAppDto(app, counts.get(app.id) ?? 0));
  }

  async get(id: string): Promise<AppDto> {
    const app = await this.find(id);
    return toAppDto(app, (await this.proxyCounts(id)).get(id) ?? 0);
  }

  async create(dto: CreateAppDto): Promise<AppDto> {
    this.checkTemplate(dto.templateId);
    const app = await this.save(this.apps.create(dto));
    await this.changes.publish('apps', app.id);
    return toAppDto(app, 0);
  }

  async update(id: string, dto: UpdateAppDto): Promise<AppDto> {
    const app = await this.find(id);
    if (dto.templateId !== undefined) this.checkTemplate(dto.templateId);
    Object.assign(app, dto);
    await this.save(app);
    await this.changes.publish('apps', id);
    return this.get(id);
  }

  /** Deletes the app and its proxies (their keys stop working at once). */
  async remove(id: string): Promise<void> {
    await this.find(id);
    await this.apps.delete({ id });
    await this.changes.publish('apps', id);
  }

  /** The app, or 404. */
  async find(id: string): Promise<AppEntity> {
    const app = await this.apps.findOneBy({ id });
    if (!app) throw new NotFoundException('No such app');
    return app;
  }

  private async save(app: AppEntity): Promise<AppEntity> {
    try {
      return await this.apps.save(app);
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictException(`The slug "${app.slug}" is already used by another app`);
      throw error;
    }
  }

  private checkTemplate(templateId: string | null): void {
    // Templates arrive with the template repository; until then only "no template" exists.
    if (templateId !== null) throw new BadRequestException([`templateId ${templateId} is not a known template`]);
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
