import { Injectable } from '@nestjs/common';
import type { ConfigSettings, ProxyDefaults, TemplateRepositorySettings } from '@arrbiter/contracts';
import { ProxyDefaultsService } from '@arrbiter/server/proxies';
import { normaliseRepositorySettings, RepositorySettingsService } from '@arrbiter/server/template-sync';

/**
 * One key of the document's `settings`: read for an export, compared and written by an import, each
 * through the service that owns the setting. This is the extension point for more settings: issue 19's
 * notification webhooks become a `notifications` section over their own service (secrets exported
 * only with `secrets: true`), added to `SETTINGS_SECTIONS` and to `ConfigSettingsDto`.
 */
export interface SettingsSection<K extends keyof ConfigSettings = keyof ConfigSettings> {
  readonly key: K;
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

/** The sections, in the order an import writes them (proxy defaults before the proxies they seed). */
export const SETTINGS_SECTIONS = Symbol('SETTINGS_SECTIONS');

export const SETTINGS_SECTION_TYPES = [ProxyDefaultsSection, TemplateRepositorySection] as const;
