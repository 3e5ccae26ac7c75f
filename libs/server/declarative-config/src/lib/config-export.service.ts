import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Inject, Injectable } from '@nestjs/common';
import type {
  ConfigApp,
  ConfigDocument,
  ConfigProxy,
  ConfigService,
  ConfigSettings,
  ConfigTemplate,
} from '@arrbiter/contracts';
import { CONFIG_DOCUMENT_VERSION } from '@arrbiter/contracts';
import { AppsService } from '@arrbiter/server/apps';
import { normaliseOverrides } from '@arrbiter/server/permissions';
import { ProxiesService, rateLimitOf } from '@arrbiter/server/proxies';
import { ServicesService } from '@arrbiter/server/services';
import { normaliseAllowlist, TemplatesService } from '@arrbiter/server/templates';
import { SETTINGS_SECTIONS, SettingsSection } from './settings-sections';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Writes the instance as one declarative document, read through the owning modules' services in one
 * snapshot: settings, services, the local templates and the repository templates apps use (so that a
 * restore does not need a sync first), apps with their proxies. Secrets (upstream keys, proxy keys)
 * only when asked; those of owner-only settings (webhook URLs) only when asked by an owner. Everything is sorted by its natural key, so that equal instances export equal text.
 * Not exported: ids, timestamps, revisions, warnings, learning mode (a passing state) and admin accounts.
 */
@Injectable()
export class ConfigExportService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly services: ServicesService,
    private readonly templates: TemplatesService,
    private readonly apps: AppsService,
    private readonly proxies: ProxiesService,
    @Inject(SETTINGS_SECTIONS) private readonly sections: readonly SettingsSection[],
  ) {}

  /**
   * `secrets`: write the keys; `ownerSecrets` (default: `secrets`): write the secrets of owner-only
   * settings too (the webhooks' URLs), false for an editor's export.
   */
  async export({
    secrets,
    ownerSecrets = secrets,
  }: {
    secrets: boolean;
    ownerSecrets?: boolean;
  }): Promise<ConfigDocument> {
    return this.txHost.withTransaction({ isolationLevel: 'REPEATABLE READ' }, async () => {
      const settings: ConfigSettings = {};
      for (const section of this.sections) {
        const write = secrets && (ownerSecrets || !section.ownerSecrets);
        Object.assign(settings, { [section.key]: await section.read(write) });
      }
      const services = (await this.services.all()).sort((a, b) => byText(a.baseUrl, b.baseUrl));
      const templates = await this.templates.stored();
      const apps = await this.apps.all();
      const proxies = await this.proxies.all();

      // A proxy names its service by name where no other service has it, else by base URL.
      const nameCount = new Map<string, number>();
      for (const service of services) nameCount.set(service.name, (nameCount.get(service.name) ?? 0) + 1);
      const reference = new Map(
        services.map((s) => [s.id, nameCount.get(s.name) === 1 && !s.name.includes('://') ? s.name : s.baseUrl]),
      );
      const templateName = new Map(templates.map((t) => [t.id, t.name]));
      const used = new Set(apps.flatMap((a) => (a.templateId === null ? [] : [a.templateId])));

      return {
        version: CONFIG_DOCUMENT_VERSION,
        settings,
        services: services.map(
          (service): ConfigService => ({
            name: service.name,
            type: service.type,
            baseUrl: service.baseUrl,
            ...(secrets ? { apiKey: this.services.apiKeyOf(service) } : {}),
          }),
        ),
        templates: templates
          .filter((t) => t.source === 'local' || used.has(t.id))
          .sort((a, b) => byText(a.name, b.name))
          .map(
            (template): ConfigTemplate => ({
              name: template.name,
              ...(template.source === 'repository' ? { source: 'repository' as const } : {}),
              blocks: Object.fromEntries(
                Object.entries(template.blocks)
                  .sort(([a], [b]) => byText(a, b))
                  .map(([type, block]) => [type, normaliseAllowlist(block)]),
              ),
            }),
          ),
        apps: apps
          .sort((a, b) => byText(a.slug, b.slug))
          .map(
            (app): ConfigApp => ({
              slug: app.slug,
              name: app.name,
              template: app.templateId === null ? null : (templateName.get(app.templateId) ?? null),
              ...(app.knownClientId !== null ? { client: app.knownClientId } : {}),
              active: app.active,
              proxies: proxies
                .filter((p) => p.appId === app.id)
                .map(
                  (proxy): ConfigProxy => ({
                    service: reference.get(proxy.serviceId) ?? proxy.serviceId,
                    active: proxy.active,
                    overrides: normaliseOverrides(proxy.overrides),
                    rateLimit: rateLimitOf(proxy),
                    scrub: proxy.scrub,
                    ...(secrets ? { key: this.proxies.keyOf(proxy) } : {}),
                  }),
                )
                .sort((a, b) => byText(a.service, b.service)),
            }),
          ),
      };
    });
  }
}
