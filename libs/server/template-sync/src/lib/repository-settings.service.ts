import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { InjectRepository } from '@nestjs/typeorm';
import { BadRequestException, Injectable } from '@nestjs/common';
import type { TemplateRepositorySettings, TemplateRepositoryStatus } from '@arrbiter/contracts';
import { AppConfig } from '@arrbiter/server/config';
import { ChangeBus } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { Repository } from 'typeorm';
import { SettingEntity } from './entities/setting.entity';
import { isLocalDirectory, localDirectoryProblem, localDirectoryRules } from './local-directory';

const SETTINGS_KEY = 'template-repository';
const LAST_SYNC_KEY = 'template-repository.last-sync';

/** Syncs once a day unless an admin says otherwise. */
export const DEFAULT_INTERVAL_MINUTES = 24 * 60;

export type LastSync = NonNullable<TemplateRepositoryStatus['lastSync']>;

/** The settings as stored: trimmed, the folder without a trailing slash. */
export function normaliseRepositorySettings(settings: TemplateRepositorySettings): TemplateRepositorySettings {
  return {
    url: settings.url.trim(),
    ref: settings.ref.trim(),
    path: settings.path.trim().replace(/\/+$/, ''),
    intervalMinutes: settings.intervalMinutes,
  };
}

/** Where templates are synced from (`GET/PUT /api/admin/v1/settings/template-repository`). */
@Injectable()
export class RepositorySettingsService {
  constructor(
    @InjectRepository(SettingEntity) private readonly settingRepository: Repository<SettingEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly config: AppConfig,
    private readonly audit: ChangesService,
    private readonly changes: ChangeBus,
  ) {}

  /** The `setting` repository, inside the caller's transaction when there is one. */
  private get settings(): Repository<SettingEntity> {
    return this.txHost.tx.withRepository(this.settingRepository);
  }

  async get(): Promise<TemplateRepositorySettings> {
    const row = await this.settings.findOneBy({ key: SETTINGS_KEY });
    if (row) return row.value as TemplateRepositorySettings;
    const fallback = this.config.templateRepository;
    return { ...fallback, intervalMinutes: fallback.url === '' ? 0 : DEFAULT_INTERVAL_MINUTES };
  }

  async status(): Promise<TemplateRepositoryStatus> {
    const [settings, last] = await Promise.all([this.get(), this.settings.findOneBy({ key: LAST_SYNC_KEY })]);
    return { ...settings, lastSync: (last?.value as LastSync | undefined) ?? null };
  }

  async put(settings: TemplateRepositorySettings, actor: string): Promise<TemplateRepositoryStatus> {
    await this.txHost.withTransaction(() => this.putInTransaction(settings, actor));
    await this.changes.publish('settings');
    return this.status();
  }

  /**
   * Checks and saves the settings with their recent change, in the caller's transaction; the caller
   * publishes `settings` once it has committed (the scheduler re-plans). `operator`: set by the
   * operator (a `CONFIG_FILE`, the command line), whose local directory is allowed anywhere.
   */
  async putInTransaction(settings: TemplateRepositorySettings, actor: string, operator = false): Promise<void> {
    const value = normaliseRepositorySettings(settings);
    const refused = operator ? undefined : await this.problem(value);
    if (refused) throw new BadRequestException(refused);
    await this.txHost.withTransaction(async () => {
      await this.settings.save({ key: SETTINGS_KEY, value });
      await this.audit.record({
        actor,
        action: 'settings.template-repository-changed',
        objectType: 'settings',
        objectName: 'Template repository',
        summary:
          value.url === ''
            ? 'Template repository disabled'
            : `Template repository set to ${value.url}${value.ref ? ` at ${value.ref}` : ''}${value.path ? `, folder ${value.path}` : ''}; ${value.intervalMinutes > 0 ? `synced every ${value.intervalMinutes} minutes` : 'synced on request only'}`,
      });
    });
  }

  /**
   * Why these settings cannot be saved through the admin API (or a declarative document), or
   * undefined: a local directory set here must be inside TEMPLATE_ROOT (or be the operator's
   * TEMPLATE_REPOSITORY).
   */
  async problem(settings: TemplateRepositorySettings): Promise<string | undefined> {
    const value = normaliseRepositorySettings(settings);
    if (!isLocalDirectory(value.url)) return undefined;
    return localDirectoryProblem(value.url, value.path, localDirectoryRules(this.config));
  }

  async recordLastSync(lastSync: LastSync): Promise<void> {
    await this.settings.save({ key: LAST_SYNC_KEY, value: lastSync });
  }

  /** Called after the settings change, on this replica or another (the scheduler re-plans). */
  onChange(listener: () => void): () => void {
    return this.changes.subscribe((change) => {
      if (change.topic === 'settings' || change.topic === 'all') listener();
    });
  }
}
