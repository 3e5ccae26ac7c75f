import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AppDto, Page } from '@arrbiter/contracts';
import { ChangeBus } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { DEFAULT_PAGE_SIZE, isUniqueViolation } from '@arrbiter/server/http';
import { TemplatesService } from '@arrbiter/server/templates';
import { In, Repository } from 'typeorm';
import { AppProxyCounts } from './app-proxy-counts';
import { CreateAppDto, UpdateAppDto } from './dto/create-app.dto';
import { containsPattern, decodeAppCursor, encodeAppCursor, ListAppsDto, NO_TEMPLATE } from './dto/list-apps.dto';
import { AppEntity } from './entities/app.entity';

/** An app as the other domains read it (the entity class stays inside this lib). */
export type AppRow = Omit<AppEntity, 'template'>;

/** What the proxy route's in-memory state needs of an app. */
export type AppHotPathRow = Pick<AppEntity, 'id' | 'slug' | 'active' | 'templateId'>;

export function toAppDto(app: AppEntity, proxyCount: number, templateName: string | null): AppDto {
  return {
    id: app.id,
    name: app.name,
    slug: app.slug,
    templateId: app.templateId,
    templateName,
    knownClientId: app.knownClientId,
    active: app.active,
    proxyCount,
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  };
}

/**
 * Apps: the `app` table, through its repository and the caller's `TransactionHost` transaction. Writes
 * are recorded in the audit trail in their own transaction and published once it has committed.
 */
@Injectable()
export class AppsService {
  constructor(
    @InjectRepository(AppEntity) private readonly appRepository: Repository<AppEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly changes: ChangeBus,
    private readonly audit: ChangesService,
    private readonly templates: TemplatesService,
    private readonly proxyCounts: AppProxyCounts,
  ) {}

  /** The `app` repository, inside the caller's transaction when there is one. */
  private get apps(): Repository<AppEntity> {
    return this.txHost.tx.withRepository(this.appRepository);
  }

  /**
   * One page of apps by name, then id, continued after the cursor: filtered by a part of the name or
   * slug, the template (`none`: no template) and the state. Proxy counts and template names are read
   * for the page's apps only.
   */
  async list(query: ListAppsDto = {}): Promise<Page<AppDto>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeAppCursor(query.cursor);
    const qb = this.apps.createQueryBuilder('a');
    const q = query.q?.trim();
    if (q) qb.andWhere(`(a.name ILIKE :q ESCAPE '\\' OR a.slug ILIKE :q ESCAPE '\\')`, { q: containsPattern(q) });
    if (query.templateId === NO_TEMPLATE) qb.andWhere('a.template_id IS NULL');
    else if (query.templateId)
      qb.andWhere('a.template_id = :templateId', { templateId: query.templateId.toLowerCase() });
    if (query.state) qb.andWhere('a.active = :active', { active: query.state === 'active' });
    if (cursor)
      qb.andWhere('(a.name, a.id) > (:cursorName, :cursorId)', { cursorName: cursor.name, cursorId: cursor.id });
    const rows = await qb
      .orderBy('a.name', 'ASC')
      .addOrderBy('a.id', 'ASC')
      .limit(limit + 1)
      .getMany();
    const apps = rows.slice(0, limit);
    const last = apps.at(-1);
    return {
      items: await this.toDtos(apps),
      nextCursor: rows.length > limit && last ? encodeAppCursor({ name: last.name, id: last.id }) : null,
    };
  }

  async get(id: string): Promise<AppDto> {
    const [dto] = await this.toDtos([await this.find(id)]);
    return dto;
  }

  async create(dto: CreateAppDto, actor: string): Promise<AppDto> {
    const app = await this.txHost.withTransaction(() => this.createInTransaction(dto, actor));
    await this.changes.publish('apps', app.id);
    return this.get(app.id);
  }

  /**
   * Creates an app with its recent change, in the caller's transaction; the caller publishes `apps`.
   * `clonedFrom`: the app it is a copy of (`app.cloned` in recent changes; the caller copies the proxies).
   * `knownClientId`: the known client it is connected as (never set through PATCH). 409 when the slug is taken.
   */
  async createInTransaction(
    dto: CreateAppDto & { knownClientId?: string | null },
    actor: string,
    clonedFrom?: AppRow,
  ): Promise<AppRow> {
    const templateName = await this.templateNameOf(dto.templateId);
    const saved = await this.save(this.apps.create({ ...dto, knownClientId: dto.knownClientId ?? null }));
    const origin = clonedFrom
      ? `cloned from "${clonedFrom.name}" (/proxy/${clonedFrom.slug})`
      : saved.knownClientId !== null
        ? `connected as the known client ${saved.knownClientId}`
        : 'created';
    await this.audit.record({
      actor,
      action: clonedFrom ? 'app.cloned' : 'app.created',
      objectType: 'app',
      objectId: saved.id,
      objectName: saved.name,
      appId: saved.id,
      summary: `App "${saved.name}" (/proxy/${saved.slug}) ${origin} with ${templateName !== null ? `template "${templateName}"` : 'no template'}, ${saved.active ? 'active' : 'inactive'}`,
    });
    return saved;
  }

  async update(id: string, dto: UpdateAppDto, actor: string): Promise<AppDto> {
    await this.txHost.withTransaction(() => this.updateInTransaction(id, dto, actor));
    await this.changes.publish('apps', id);
    return this.get(id);
  }

  /** Changes an app with its recent change, in the caller's transaction; the caller publishes `apps`. */
  async updateInTransaction(id: string, dto: UpdateAppDto, actor: string): Promise<AppRow> {
    const app = await this.find(id);
    const before = { ...app };
    const templateName = dto.templateId !== undefined ? await this.templateNameOf(dto.templateId) : null;
    Object.assign(app, dto);
    await this.save(app);
    const changed: string[] = [];
    if (before.name !== app.name) changed.push(`renamed "${before.name}" → "${app.name}"`);
    if (before.slug !== app.slug) changed.push(`slug ${before.slug} → ${app.slug}`);
    if (before.templateId !== app.templateId)
      changed.push(templateName !== null ? `template "${templateName}"` : 'no template');
    if (before.active !== app.active) changed.push(app.active ? 'activated' : 'deactivated');
    await this.audit.record({
      actor,
      action: 'app.updated',
      objectType: 'app',
      objectId: id,
      objectName: app.name,
      appId: id,
      summary: `App "${app.name}": ${changed.length > 0 ? changed.join(', ') : 'saved without changes'}`,
    });
    return app;
  }

  /** Deletes the app and its proxies (their keys stop working at once). */
  async remove(id: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(() => this.removeInTransaction(id, actor));
    await this.changes.publish('apps', id);
  }

  /** Deletes an app and its proxies with its recent change, in the caller's transaction; the caller publishes. */
  async removeInTransaction(id: string, actor: string): Promise<void> {
    const app = await this.find(id);
    await this.apps.delete({ id });
    await this.audit.record({
      actor,
      action: 'app.deleted',
      objectType: 'app',
      objectId: id,
      objectName: app.name,
      appId: id,
      summary: `App "${app.name}" (/proxy/${app.slug}) deleted with its proxies and keys`,
    });
  }

  /**
   * The first free slug of `base`, `base-2`, `base-3`… (in the caller's transaction, if any): one query.
   * `base` must be a valid slug; its suffixes are cut to stay within 63 characters.
   */
  async freeSlug(base: string): Promise<string> {
    const stem = (n: number) => `${base.slice(0, 63 - `-${n}`.length).replace(/-+$/, '')}-${n}`;
    const rows: { slug: string }[] = await this.apps
      .createQueryBuilder('a')
      .select('a.slug', 'slug')
      .where('a.slug = :base OR a.slug ~ :suffixed', {
        base,
        suffixed: `^${base.slice(0, 50).replace(/-+$/, '')}[a-z0-9-]*-[0-9]+$`,
      })
      .getRawMany();
    const taken = new Set(rows.map((row) => row.slug));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n += 1) if (!taken.has(stem(n))) return stem(n);
  }

  /** Every app, by slug (a declarative export or import reads them all): one query. */
  all(): Promise<AppRow[]> {
    return this.apps.find({ order: { slug: 'ASC' } });
  }

  /** The app (read in the caller's transaction, if any), or 404. */
  async find(id: string): Promise<AppRow> {
    const app = await this.apps.findOneBy({ id });
    if (!app) throw new NotFoundException('No such app');
    return app;
  }

  /**
   * What the proxy route's in-memory state needs of apps (no names, no timestamps): every app or one,
   * in one query.
   */
  hotPathRows(where: { id?: string } = {}): Promise<AppHotPathRow[]> {
    return this.apps.find({ select: { id: true, slug: true, active: true, templateId: true }, where });
  }

  /** These apps (those that exist), by id: one query. */
  async byIds(ids: readonly string[]): Promise<Map<string, AppRow>> {
    if (ids.length === 0) return new Map();
    const apps = await this.apps.findBy({ id: In([...new Set(ids)]) });
    return new Map(apps.map((app) => [app.id, app]));
  }

  /** The apps that use any of these templates (in the caller's transaction, if any): one query. */
  async ofTemplates(templateIds: readonly string[]): Promise<AppRow[]> {
    if (templateIds.length === 0) return [];
    return this.apps.findBy({ templateId: In([...new Set(templateIds)]) });
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

  /** The chosen template's name (null for "no template"); 400 when it does not exist. */
  private async templateNameOf(templateId: string | null): Promise<string | null> {
    if (templateId === null) return null;
    const name = (await this.templates.namesOf([templateId])).get(templateId);
    if (name === undefined) throw new BadRequestException([`templateId ${templateId} is not a known template`]);
    return name;
  }

  /** The apps with their proxy counts and template names: one query for each, whatever the number of apps. */
  private async toDtos(apps: AppEntity[]): Promise<AppDto[]> {
    if (apps.length === 0) return [];
    const templateIds = apps.flatMap((app) => (app.templateId === null ? [] : [app.templateId]));
    const [counts, names] = await Promise.all([
      this.proxyCounts.countFor(apps.map((app) => app.id)),
      this.templates.namesOf(templateIds),
    ]);
    return apps.map((app) =>
      toAppDto(app, counts.get(app.id) ?? 0, app.templateId === null ? null : (names.get(app.templateId) ?? null)),
    );
  }
}
