import { Injectable } from '@nestjs/common';
import type {
  ConfigNotifications,
  ConfigSettings,
  ProxyDefaults,
  TemplateRepositorySettings,
} from '@arrbiter/contracts';
import { maskWebhookUrl, MASK, WebhooksService } from '@arrbiter/server/notifications';
import { ProxyDefaultsService } from '@arrbiter/server/proxies';
import { normaliseRepositorySettings, RepositorySettingsService } from '@arrbiter/server/template-sync';

/**
 * One key of the document's `settings`: read for an export, compared and written by an import, each
 * through the service that owns the setting. More settings are more sections, added to
 * `SETTINGS_SECTION_TYPES` and to `ConfigSettingsDto`.
 */
export interface SettingsSection<K extends keyof ConfigSettings = keyof ConfigSettings> {
  readonly key: K;
  /**
   * Whether the section's secrets are an owner's (settings only owners change): an export writes them
   * only for an owner (or the operator's command line), masked for an editor even with `secrets`.
   */
  readonly ownerSecrets?: boolean;
  /** The current value, as an export writes it (`secrets`: whether secrets may be written). */
  read(secrets: boolean): Promise<NonNullable<ConfigSettings[K]>>;
  /** Why the document's value cannot be saved (beyond its shape); `operator`: from the operator's file. */
  problems(value: NonNullable<ConfigSettings[K]>, operator: boolean): Promise<string[]>;
  /** What differs, one short phrase each; empty when the value is already the current one. */
  changes(current: NonNullable<ConfigSettings[K]>, wanted: NonNullable<ConfigSettings[K]>): string[];
  /** Saves the value with its recent change, in the caller's transaction. */
  writeInTransaction(value: NonNullable<ConfigSettings[K]>, actor: string, operator: boolean): Promise<void>;
}

@Injectable()
export class ProxyDefaultsSection implements SettingsSection<'proxyDefaults'> {
  readonly key = 'proxyDefaults' as const;

  constructor(private readonly defaults: ProxyDefaultsService) {}

  read(): Promise<ProxyDefaults> {
    return this.defaults.get();
  }

  async problems(): Promise<string[]> {
    return [];
  }

  changes(current: ProxyDefaults, wanted: ProxyDefaults): string[] {
    return [
      ...(JSON.stringify(current.rateLimit) !== JSON.stringify(wanted.rateLimit) ? ['rate limit'] : []),
      ...(current.scrub !== wanted.scrub ? ['scrub'] : []),
    ];
  }

  async writeInTransaction(value: ProxyDefaults, actor: string): Promise<void> {
    // ProxyDefaultsService.put joins the caller's transaction and publishes nothing.
    await this.defaults.put({ rateLimit: value.rateLimit, scrub: value.scrub }, actor);
  }
}

@Injectable()
export class TemplateRepositorySection implements SettingsSection<'templateRepository'> {
  readonly key = 'templateRepository' as const;

  constructor(private readonly repository: RepositorySettingsService) {}

  read(): Promise<TemplateRepositorySettings> {
    return this.repository.get();
  }

  async problems(value: TemplateRepositorySettings, operator: boolean): Promise<string[]> {
    const problem = operator ? undefined : await this.repository.problem(value);
    return problem === undefined ? [] : [problem];
  }

  changes(current: TemplateRepositorySettings, wanted: TemplateRepositorySettings): string[] {
    const next = normaliseRepositorySettings(wanted);
    return (['url', 'ref', 'path', 'intervalMinutes'] as const).filter((field) => current[field] !== next[field]);
  }

  writeInTransaction(value: TemplateRepositorySettings, actor: string, operator: boolean): Promise<void> {
    return this.repository.putInTransaction(value, actor, operator);
  }
}

/**
 * The notification webhooks: URLs whole only with `secrets` for an owner (notification
 * settings are owner-only), masked otherwise; a masked URL keeps the stored webhook it masks
 * (`WebhooksService.fromDocument`).
 */
@Injectable()
export class NotificationsSection implements SettingsSection<'notifications'> {
  readonly key = 'notifications' as const;
  readonly ownerSecrets = true;

  constructor(private readonly webhooks: WebhooksService) {}

  read(secrets: boolean): Promise<ConfigNotifications> {
    return this.webhooks.document(secrets);
  }

  async problems(value: ConfigNotifications): Promise<string[]> {
    return (await this.webhooks.fromDocument(value)).problems;
  }

  /** `current` has whole URLs: a masked one in the document is compared masked. */
  changes(current: ConfigNotifications, wanted: ConfigNotifications): string[] {
    const [before, after] = [current.webhooks, wanted.webhooks];
    const changes = before.length === after.length ? [] : [`${before.length} → ${after.length} webhooks`];
    for (const [i, webhook] of after.entries()) {
      const stored = before[i];
      if (!stored) continue;
      const url = webhook.url.includes(MASK) ? maskWebhookUrl(stored.url) : stored.url;
      const fields = [
        ...(url !== webhook.url ? ['url'] : []),
        ...(stored.format !== webhook.format ? ['format'] : []),
        ...(JSON.stringify([...stored.events].sort()) !== JSON.stringify([...webhook.events].sort()) ? ['events'] : []),
        ...(stored.enabled !== webhook.enabled ? ['enabled'] : []),
      ];
      if (fields.length > 0) changes.push(`webhook ${i + 1}: ${fields.join(', ')}`);
    }
    return changes;
  }

  async writeInTransaction(value: ConfigNotifications, actor: string): Promise<void> {
    await this.webhooks.saveInTransaction((await this.webhooks.fromDocument(value)).webhooks, actor);
  }
}

/** The sections, in the order an import writes them (proxy defaults before the proxies they seed). */
export const SETTINGS_SECTIONS = Symbol('SETTINGS_SECTIONS');

export const SETTINGS_SECTION_TYPES = [ProxyDefaultsSection, TemplateRepositorySection, NotificationsSection] as const;
