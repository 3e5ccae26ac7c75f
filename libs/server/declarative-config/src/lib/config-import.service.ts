import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import {
  BadRequestException,
  ConflictException,
  HttpException,
  Inject,
  Injectable,
  UnprocessableEntityException,
} from '@nestjs/common';
import type {
  AllowlistMap,
  ConfigDocument,
  ConfigImportReport,
  ConfigObjectChange,
  ConfigProxyChange,
  Grant,
} from '@arrbiter/contracts';
import { AppRow, AppsService } from '@arrbiter/server/apps';
import { generateProxyKey, keyDigest } from '@arrbiter/server/crypto';
import { ChangeBus, CONFIG_IMPORT_LOCK } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { diffGrants, effectiveAllowlist, normaliseOverrides } from '@arrbiter/server/permissions';
import { DeclaredProxy, ProxiesService, ProxyDefaultsService, ProxyRow, rateLimitOf } from '@arrbiter/server/proxies';
import { checkBaseUrl, Discovery, ServiceRow, ServicesService } from '@arrbiter/server/services';
import { TemplateRow, TemplatesService } from '@arrbiter/server/templates';
import { SETTINGS_SECTIONS, SettingsSection } from './settings-sections';

export interface ImportOptions {
  dryRun: boolean;
  /** Who imports: an admin's username, or `system` (`CONFIG_FILE`, the command line). */
  actor: string;
  /** The operator's own file (`CONFIG_FILE`, `main.js import`): a local template directory may be anywhere. */
  operator: boolean;
  /** Where the document came from, for recent changes ("the admin API", "CONFIG_FILE /etc/arrbiter.yaml"). */
  source: string;
}

type Blocks = Record<string, AllowlistMap>;

/** An upstream a document names with a key the instance does not have yet: what it said about itself. */
interface Discovered {
  apiKey: string;
  discovery: Discovery;
}

/** A service as it will be once the document is applied. */
interface ServiceAfter {
  id?: string;
  baseUrl: string;
  name: string;
  type: string;
}

/** What applying the document writes, worked out (and checked) before the first write. */
interface Plan {
  report: ConfigImportReport;
  settings: { section: SettingsSection; value: unknown }[];
  serviceCreates: ({ baseUrl: string } & Discovered)[];
  serviceKeys: ({ id: string } & Discovered)[];
  serviceDeletes: ServiceRow[];
  templateCreates: { name: string; source: 'local' | 'repository'; blocks: Blocks }[];
  templateUpdates: { template: TemplateRow; blocks: Blocks }[];
  templateDeletes: TemplateRow[];
  appCreates: { slug: string; name: string; template: string | null; active: boolean }[];
  appUpdates: { app: AppRow; name: string; template: string | null; active: boolean }[];
  appDeletes: AppRow[];
  proxyCreates: { slug: string; baseUrl: string; settings: DeclaredProxy }[];
  proxyUpdates: { proxy: ProxyRow; declared: DeclaredProxy; effectiveBefore: AllowlistMap }[];
  proxyDeletes: ProxyRow[];
}

function emptyReport(dryRun: boolean, prune: boolean): ConfigImportReport {
  return {
    dryRun,
    changed: false,
    prune,
    settings: [],
    services: [],
    templates: [],
    apps: [],
    proxies: [],
    unchanged: { settings: 0, services: 0, templates: 0, apps: 0, proxies: 0 },
  };
}

function normaliseBlocks(blocks: Blocks): Blocks {
  return Object.fromEntries(
    Object.entries(blocks)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, block]) => [type, normaliseOverrides(block)]),
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function grantCount(grants: readonly Grant[], verb: string): string {
  return `${grants.length} grant${grants.length === 1 ? '' : 's'} ${verb}`;
}

/**
 * Applies a declarative configuration document: reads the instance through the owning modules'
 * services, works out every change (and every problem, reported with its place in the document)
 * before writing anything, then writes them in one transaction: each proxy it changes gets an
 * `import` revision, and one recent change names who imported. Upstreams with a new key are
 * discovered first, outside the transaction: one that does not answer stops the import before any
 * write. A dry run reports the same changes and writes nothing.
 */
@Injectable()
export class ConfigImportService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly services: ServicesService,
    private readonly templates: TemplatesService,
    private readonly apps: AppsService,
    private readonly proxies: ProxiesService,
    private readonly defaults: ProxyDefaultsService,
    private readonly audit: ChangesService,
    private readonly changes: ChangeBus,
    @Inject(SETTINGS_SECTIONS) private readonly sections: readonly SettingsSection[],
  ) {}

  /** A validated document (`validateDocument`) applied, or for a dry run only compared. */
  async import(document: ConfigDocument, options: ImportOptions): Promise<ConfigImportReport> {
    const discovered = await this.discover(document);
    if (options.dryRun) {
      return this.txHost.withTransaction(async () => (await this.plan(document, discovered, options)).report);
    }
    const { plan, written } = await this.txHost.withTransaction(async () => {
      // One import at a time: a replica starting with the same CONFIG_FILE waits here, then finds nothing to do.
      await this.txHost.tx.query('SELECT pg_advisory_xact_lock($1)', [CONFIG_IMPORT_LOCK]);
      const plan = await this.plan(document, discovered, options);
      const written = plan.report.changed ? await this.apply(plan, options) : [];
      return { plan, written };
    });
    if (plan.report.changed) {
      // The OpenAPI descriptions of new service types (failures are logged), then every in-memory view.
      for (const { service, apiKey } of written) await this.services.afterWrite(service, apiKey, false);
      await this.changes.publish('all');
    }
    return plan.report;
  }

  /** Asks each upstream the document gives a key the instance does not hold who it is (422 / 502 otherwise). */
  private async discover(document: ConfigDocument): Promise<Map<string, Discovered>> {
    const result = new Map<string, Discovered>();
    if (!document.services?.length) return result;
    const known = new Map((await this.services.all()).map((service) => [service.baseUrl, service]));
    for (const [i, service] of document.services.entries()) {
      const stored = known.get(service.baseUrl);
      if (service.apiKey === undefined || (stored && this.services.apiKeyOf(stored) === service.apiKey)) continue;
      let discovery: Discovery;
      try {
        discovery = await this.services.discover(service.baseUrl, service.apiKey);
      } catch (error) {
        if (error instanceof HttpException)
          throw new HttpException({ message: [`services[${i}]: ${error.message}`] }, error.getStatus());
        throw error;
      }
      if (service.type !== undefined && discovery.type !== service.type) {
        throw new UnprocessableEntityException([
          `services[${i}].type: ${service.baseUrl} answers as a ${discovery.type}, not a ${service.type}`,
        ]);
      }
      result.set(service.baseUrl, { apiKey: service.apiKey, discovery });
    }
    return result;
  }

  private async plan(
    document: ConfigDocument,
    discovered: ReadonlyMap<string, Discovered>,
    options: ImportOptions,
  ): Promise<Plan> {
    const prune = document.prune === true;
    const plan: Plan = {
      report: emptyReport(options.dryRun, prune),
      settings: [],
      serviceCreates: [],
      serviceKeys: [],
      serviceDeletes: [],
      templateCreates: [],
      templateUpdates: [],
      templateDeletes: [],
      appCreates: [],
      appUpdates: [],
      appDeletes: [],
      proxyCreates: [],
      proxyUpdates: [],
      proxyDeletes: [],
    };
    const { report } = plan;
    const problems: string[] = [];
    const [services, templates, apps, proxies] = [
      await this.services.all(),
      await this.templates.stored(),
      await this.apps.all(),
      await this.proxies.all(),
    ];

    // Settings, each section through its owner.
    for (const section of this.sections) {
      const wanted = document.settings?.[section.key];
      if (wanted === undefined) continue;
      problems.push(
        ...(await section.problems(wanted as never, options.operator)).map((p) => `settings.${section.key}: ${p}`),
      );
      const changes = section.changes((await section.read(true)) as never, wanted as never);
      if (changes.length === 0) report.unchanged.settings += 1;
      else {
        plan.settings.push({ section, value: wanted });
        report.settings.push({ kind: 'updated', name: section.key, changes });
      }
    }
    const defaults = document.settings?.proxyDefaults ?? (await this.defaults.get());

    // Services, by base URL.
    const serviceByUrl = new Map(services.map((s) => [s.baseUrl, s]));
    const after = new Map<string, ServiceAfter>(services.map((s) => [s.baseUrl, s]));
    for (const [i, wanted] of (document.services ?? []).entries()) {
      const path = `services[${i}]`;
      const stored = serviceByUrl.get(wanted.baseUrl);
      if (!stored) {
        const found = discovered.get(wanted.baseUrl);
        if (wanted.apiKey === undefined) {
          problems.push(
            `${path}.apiKey is required to register ${wanted.baseUrl}, which this instance does not have (export with secrets, or reference a secret in CONFIG_FILE)`,
          );
          continue;
        }
        if (!found) throw new ConflictException('The services changed while importing: try again');
        after.set(wanted.baseUrl, { baseUrl: wanted.baseUrl, name: found.discovery.name, type: found.discovery.type });
        plan.serviceCreates.push({ baseUrl: wanted.baseUrl, ...found });
        report.services.push({
          kind: 'created',
          name: wanted.baseUrl,
          changes: [`${found.discovery.type} "${found.discovery.name}"`],
        });
        continue;
      }
      if (wanted.type !== undefined && wanted.type !== stored.type)
        problems.push(`${path}.type: the service at ${stored.baseUrl} is a ${stored.type}, not a ${wanted.type}`);
      if (wanted.apiKey !== undefined && wanted.apiKey !== this.services.apiKeyOf(stored)) {
        const found = discovered.get(wanted.baseUrl);
        if (!found) throw new ConflictException('The services changed while importing: try again');
        if (found.discovery.type !== stored.type)
          problems.push(`${path}: ${stored.baseUrl} now answers as a ${found.discovery.type}, not a ${stored.type}`);
        plan.serviceKeys.push({ id: stored.id, ...found });
        report.services.push({ kind: 'updated', name: stored.baseUrl, changes: ['API key replaced'] });
      } else report.unchanged.services += 1;
    }
    const resolveService = (reference: string, path: string): ServiceAfter | undefined => {
      const url = checkBaseUrl(reference);
      if (url.ok && after.has(url.url)) return after.get(url.url);
      // A name: the document's own first, then the instance's.
      const declared = (document.services ?? []).filter((s) => s.name === reference);
      const named =
        declared.length > 0
          ? declared.map((s) => after.get(s.baseUrl))
          : [...after.values()].filter((s) => s.name === reference);
      if (named.length === 1 && named[0]) return named[0];
      problems.push(
        named.length > 1
          ? `${path}: ${named.length} services are named "${reference}": name this one by its base URL`
          : `${path}: no service "${reference}" (give a base URL or the name of a service listed under services or registered here)`,
      );
      return undefined;
    };

    // Templates, by name: local ones are the document's; a repository one only when missing here.
    const templateByName = new Map(templates.map((t) => [t.name, t]));
    const templateName = new Map(templates.map((t) => [t.id, t.name]));
    const blocksAfter = new Map<string, Blocks>(templates.map((t) => [t.name, t.blocks]));
    const listedTemplates = new Set<string>();
    for (const [i, wanted] of (document.templates ?? []).entries()) {
      const source = wanted.source ?? 'local';
      const stored = templateByName.get(wanted.name);
      listedTemplates.add(wanted.name);
      if (!stored) {
        blocksAfter.set(wanted.name, wanted.blocks);
        plan.templateCreates.push({ name: wanted.name, source, blocks: wanted.blocks });
        report.templates.push({
          kind: 'created',
          name: wanted.name,
          changes: [source, ...Object.keys(wanted.blocks).sort()],
        });
      } else if (stored.source !== source) {
        problems.push(
          `templates[${i}].source: "${wanted.name}" is a ${stored.source} template on this instance, not a ${source} one`,
        );
      } else if (source === 'repository' || same(normaliseBlocks(stored.blocks), normaliseBlocks(wanted.blocks))) {
        report.unchanged.templates += 1;
      } else {
        blocksAfter.set(wanted.name, wanted.blocks);
        plan.templateUpdates.push({ template: stored, blocks: wanted.blocks });
        const types = [...new Set([...Object.keys(stored.blocks), ...Object.keys(wanted.blocks)])].sort();
        report.templates.push({
          kind: 'updated',
          name: wanted.name,
          changes: types.flatMap((type) => {
            const { added, removed } = diffGrants(stored.blocks[type] ?? {}, wanted.blocks[type] ?? {});
            return added.length + removed.length > 0
              ? [`${type}: ${grantCount(added, 'added')}, ${grantCount(removed, 'removed')}`]
              : [];
          }),
        });
      }
    }

    // Apps, by slug.
    const appBySlug = new Map(apps.map((a) => [a.slug, a]));
    const listedApps = new Set<string>();
    /** Template name of each app once the document is applied. */
    const appTemplate = new Map<string, string | null>(
      apps.map((a) => [a.slug, a.templateId === null ? null : (templateName.get(a.templateId) ?? null)]),
    );
    for (const [i, wanted] of (document.apps ?? []).entries()) {
      const stored = appBySlug.get(wanted.slug);
      listedApps.add(wanted.slug);
      const template = wanted.template !== undefined ? wanted.template : (appTemplate.get(wanted.slug) ?? null);
      if (template !== null && !blocksAfter.has(template)) {
        problems.push(
          `apps[${i}].template: no template named "${template}" here or under templates (a repository template comes from a template sync, or from a document exported with it)`,
        );
      }
      appTemplate.set(wanted.slug, template);
      const active = wanted.active ?? stored?.active ?? true;
      if (!stored) {
        plan.appCreates.push({ slug: wanted.slug, name: wanted.name, template, active });
        report.apps.push({
          kind: 'created',
          name: wanted.slug,
          changes: [template === null ? 'no template' : `template "${template}"`, active ? 'active' : 'inactive'],
        });
        continue;
      }
      const changes = [
        ...(stored.name !== wanted.name ? ['name'] : []),
        ...((appTemplate.get(stored.slug) ?? null) !== templateNameOf(stored, templateName) ? ['template'] : []),
        ...(stored.active !== active ? [active ? 'activated' : 'deactivated'] : []),
      ];
      if (changes.length === 0) report.unchanged.apps += 1;
      else {
        plan.appUpdates.push({ app: stored, name: wanted.name, template, active });
        report.apps.push({ kind: 'updated', name: stored.slug, changes });
      }
    }
    if (prune && document.apps !== undefined) {
      for (const app of apps) {
        if (listedApps.has(app.slug)) continue;
        plan.appDeletes.push(app);
        appTemplate.delete(app.slug);
        const count = proxies.filter((p) => p.appId === app.id).length;
        report.apps.push({ kind: 'deleted', name: app.slug, changes: [`with its ${count} proxies`] });
      }
    }

    // Proxies, by app and service.
    const serviceById = new Map(services.map((s) => [s.id, s]));
    const appById = new Map(apps.map((a) => [a.id, a]));
    const deletedApps = new Set(plan.appDeletes.map((a) => a.id));
    const handled = new Set<string>();
    const blockOf = (template: string | null | undefined, type: string, source: ReadonlyMap<string, Blocks>) =>
      (template ? source.get(template)?.[type] : undefined) ?? {};
    const blocksBefore = new Map(templates.map((t) => [t.name, t.blocks]));
    const newKeys: { key: string; path: string; proxy?: ProxyRow }[] = [];
    const nameOf = (slug: string, service: ServiceAfter) => `${slug} → ${service.name}`;
    for (const [i, app] of (document.apps ?? []).entries()) {
      if (app.proxies === undefined) continue;
      const stored = appBySlug.get(app.slug);
      const listed = new Map<string, string>();
      for (const [j, wanted] of app.proxies.entries()) {
        const path = `apps[${i}].proxies[${j}]`;
        const service = resolveService(wanted.service, `${path}.service`);
        if (!service) continue;
        const first = listed.get(service.baseUrl);
        if (first !== undefined) {
          problems.push(`${path}.service: ${service.baseUrl} already has a proxy in this app (${first})`);
          continue;
        }
        listed.set(service.baseUrl, path);
        const existing =
          stored && service.id ? proxies.find((p) => p.appId === stored.id && p.serviceId === service.id) : undefined;
        const declared: DeclaredProxy = {
          active: wanted.active ?? existing?.active ?? true,
          overrides: wanted.overrides ?? existing?.overrides ?? {},
          rateLimit:
            wanted.rateLimit !== undefined ? wanted.rateLimit : existing ? rateLimitOf(existing) : defaults.rateLimit,
          scrub: wanted.scrub ?? existing?.scrub ?? defaults.scrub,
        };
        const effectiveAfter = effectiveAllowlist(
          blockOf(appTemplate.get(app.slug), service.type, blocksAfter),
          declared.overrides,
        );
        if (wanted.key !== undefined && existing?.keyDigest !== keyDigest(wanted.key)) {
          declared.key = wanted.key;
          newKeys.push({ key: wanted.key, path: `${path}.key`, proxy: existing });
        }
        if (!existing) {
          plan.proxyCreates.push({ slug: app.slug, baseUrl: service.baseUrl, settings: declared });
          report.proxies.push({
            kind: 'created',
            name: nameOf(app.slug, service),
            app: app.slug,
            service: service.baseUrl,
            changes: [declared.active ? 'active' : 'inactive', ...(declared.key ? ['key given'] : ['new key'])],
            ...diffGrants({}, effectiveAfter),
          });
          continue;
        }
        handled.add(existing.id);
        const before = effectiveAllowlist(
          blockOf(templateNameOf(stored as AppRow, templateName), service.type, blocksBefore),
          existing.overrides,
        );
        const overridesChanged = !same(normaliseOverrides(existing.overrides), normaliseOverrides(declared.overrides));
        const grants = diffGrants(before, effectiveAfter);
        const changes = [
          ...(existing.active !== declared.active ? [declared.active ? 'activated' : 'deactivated'] : []),
          ...(overridesChanged ? ['overrides'] : []),
          ...(!overridesChanged && grants.added.length + grants.removed.length > 0 ? ['template grants'] : []),
          ...(!same(rateLimitOf(existing), declared.rateLimit) ? ['rate limit'] : []),
          ...(existing.scrub !== declared.scrub ? ['scrub'] : []),
          ...(declared.key !== undefined ? ['key replaced'] : []),
        ];
        if (changes.length === 0) {
          report.unchanged.proxies += 1;
          continue;
        }
        plan.proxyUpdates.push({ proxy: existing, declared, effectiveBefore: before });
        report.proxies.push({
          kind: 'updated',
          name: nameOf(app.slug, service),
          app: app.slug,
          service: service.baseUrl,
          changes,
          ...grants,
        });
      }
      if (prune && stored) {
        for (const proxy of proxies) {
          if (proxy.appId !== stored.id || handled.has(proxy.id)) continue;
          const service = serviceById.get(proxy.serviceId);
          handled.add(proxy.id);
          plan.proxyDeletes.push(proxy);
          report.proxies.push({
            kind: 'deleted',
            name: `${app.slug} → ${service?.name ?? proxy.serviceId}`,
            app: app.slug,
            service: service?.baseUrl ?? proxy.serviceId,
            changes: [],
            added: [],
            removed: [],
          });
        }
      }
    }
    // The proxies the document does not list whose effective allowlist its templates change.
    for (const proxy of proxies) {
      const app = appById.get(proxy.appId);
      const service = serviceById.get(proxy.serviceId);
      if (handled.has(proxy.id) || !app || !service || deletedApps.has(app.id)) continue;
      const before = effectiveAllowlist(
        blockOf(templateNameOf(app, templateName), service.type, blocksBefore),
        proxy.overrides,
      );
      const afterGrants = effectiveAllowlist(
        blockOf(appTemplate.get(app.slug), service.type, blocksAfter),
        proxy.overrides,
      );
      const grants = diffGrants(before, afterGrants);
      if (grants.added.length + grants.removed.length === 0) continue;
      plan.proxyUpdates.push({
        proxy,
        declared: {
          active: proxy.active,
          overrides: proxy.overrides,
          rateLimit: rateLimitOf(proxy),
          scrub: proxy.scrub,
        },
        effectiveBefore: before,
      });
      report.proxies.push({
        kind: 'updated',
        name: nameOf(app.slug, service),
        app: app.slug,
        service: service.baseUrl,
        changes: ['template grants'],
        ...grants,
      });
    }

    // A key the document gives must not be another proxy's (one that stays).
    const leaving = new Set([
      ...plan.proxyDeletes.map((p) => p.id),
      ...proxies.filter((p) => deletedApps.has(p.appId)).map((p) => p.id),
    ]);
    const replaced = new Set(newKeys.flatMap(({ proxy }) => (proxy ? [proxy.id] : [])));
    const taken = new Map(
      proxies.filter((p) => !leaving.has(p.id) && !replaced.has(p.id)).map((p) => [p.keyDigest, p]),
    );
    for (const { key, path } of newKeys) {
      const owner = taken.get(keyDigest(key));
      if (owner) {
        const app = appById.get(owner.appId);
        problems.push(`${path}: this key is already the key of another proxy of "${app?.slug ?? owner.appId}"`);
      }
    }

    // Pruned templates and services: only what nothing that stays uses.
    if (prune && document.templates !== undefined) {
      const used = new Set([...appTemplate.values()].filter((name): name is string => name !== null));
      for (const template of templates) {
        if (template.source !== 'local' || listedTemplates.has(template.name)) continue;
        if (used.has(template.name)) {
          const users = [...appTemplate].filter(([, name]) => name === template.name).map(([slug]) => slug);
          problems.push(
            `templates: "${template.name}" is not listed but apps use it (${users.slice(0, 5).join(', ')}): list it, or change their template`,
          );
          continue;
        }
        plan.templateDeletes.push(template);
        report.templates.push({ kind: 'deleted', name: template.name, changes: [] });
      }
    }
    if (prune && document.services !== undefined) {
      const listed = new Set(document.services.map((s) => s.baseUrl));
      const deletedProxies = new Set([...leaving]);
      const usedIds = new Set(proxies.filter((p) => !deletedProxies.has(p.id)).map((p) => p.serviceId));
      const usedUrls = new Set(plan.proxyCreates.map((p) => p.baseUrl));
      for (const service of services) {
        if (listed.has(service.baseUrl)) continue;
        if (usedIds.has(service.id) || usedUrls.has(service.baseUrl)) {
          problems.push(
            `services: ${service.baseUrl} is not listed but proxies that stay use it: list it, or remove those proxies`,
          );
          continue;
        }
        plan.serviceDeletes.push(service);
        report.services.push({
          kind: 'deleted',
          name: service.baseUrl,
          changes: [`${service.type} "${service.name}"`],
        });
      }
    }

    if (problems.length > 0) throw new BadRequestException(problems.slice(0, 50));
    report.changed = (['settings', 'services', 'templates', 'apps', 'proxies'] as const).some(
      (k) => report[k].length > 0,
    );
    return plan;
  }

  /** Writes the plan in the caller's transaction; returns the services whose catalogs to fetch once committed. */
  private async apply(
    plan: Plan,
    { actor, operator, source }: ImportOptions,
  ): Promise<{ service: ServiceRow; apiKey: string }[]> {
    const written: { service: ServiceRow; apiKey: string }[] = [];
    for (const { section, value } of plan.settings) await section.writeInTransaction(value as never, actor, operator);

    const serviceIds = new Map<string, string>();
    for (const { baseUrl, apiKey, discovery } of plan.serviceCreates) {
      const service = await this.services.createInTransaction({ baseUrl, apiKey, discovery }, actor);
      serviceIds.set(baseUrl, service.id);
      written.push({ service, apiKey });
    }
    for (const { id, apiKey, discovery } of plan.serviceKeys) {
      written.push({ service: await this.services.replaceKeyInTransaction(id, { apiKey, discovery }, actor), apiKey });
    }

    for (const { name, source: templateSource, blocks } of plan.templateCreates) {
      if (templateSource === 'local') await this.templates.createLocal(name, blocks);
      else await this.templates.upsertRepositoryTemplates(new Map([[name, blocks]]));
      await this.recordTemplate(
        actor,
        'template.created',
        name,
        `${templateSource === 'local' ? 'Local' : 'Repository'} template "${name}" created by a configuration import (${Object.keys(blocks).sort().join(', ') || 'no blocks'})`,
      );
    }
    for (const { template, blocks } of plan.templateUpdates) {
      await this.templates.replaceLocalBlocks(template.id, blocks);
      await this.recordTemplate(
        actor,
        'template.updated',
        template.name,
        `Local template "${template.name}" changed by a configuration import`,
        template.id,
      );
    }
    const templateIds = new Map((await this.templates.stored()).map((t) => [t.name, t.id]));
    const templateId = (name: string | null) => (name === null ? null : (templateIds.get(name) ?? null));

    for (const proxy of plan.proxyDeletes) await this.proxies.removeInTransaction(proxy.id, actor);
    for (const app of plan.appDeletes) await this.apps.removeInTransaction(app.id, actor);
    const appIds = new Map<string, string>();
    for (const app of plan.appCreates) {
      const created = await this.apps.createInTransaction(
        { name: app.name, slug: app.slug, templateId: templateId(app.template), active: app.active },
        actor,
      );
      appIds.set(app.slug, created.id);
    }
    for (const { app, name, template, active } of plan.appUpdates) {
      await this.apps.updateInTransaction(app.id, { name, templateId: templateId(template), active }, actor);
      appIds.set(app.slug, app.id);
    }
    for (const { proxy, declared, effectiveBefore } of plan.proxyUpdates)
      await this.proxies.applyDeclaredInTransaction(proxy.id, declared, actor, effectiveBefore);
    const knownServices = new Map((await this.services.all()).map((s) => [s.baseUrl, s.id]));
    const knownApps = new Map((await this.apps.all()).map((a) => [a.slug, a.id]));
    for (const { slug, baseUrl, settings } of plan.proxyCreates) {
      const appId = appIds.get(slug) ?? knownApps.get(slug);
      const serviceId = serviceIds.get(baseUrl) ?? knownServices.get(baseUrl);
      if (!appId || !serviceId) throw new ConflictException('The configuration changed while importing: try again');
      await this.proxies.createInTransaction(
        appId,
        serviceId,
        { ...settings, key: settings.key ?? generateProxyKey() },
        actor,
        'import',
      );
    }

    if (plan.templateDeletes.length > 0) {
      await this.templates.deleteUnused(plan.templateDeletes.map((t) => t.id));
      for (const template of plan.templateDeletes)
        await this.recordTemplate(
          actor,
          'template.deleted',
          template.name,
          `Local template "${template.name}" deleted by a configuration import (prune)`,
          template.id,
        );
    }
    for (const service of plan.serviceDeletes) await this.services.removeInTransaction(service.id, actor);

    await this.audit.record({
      actor,
      action: 'config.imported',
      objectType: 'config',
      objectName: 'Configuration',
      summary: `Configuration imported from ${source}: ${describe(plan.report)}`,
    });
    return written;
  }

  private recordTemplate(actor: string, action: string, name: string, summary: string, id?: string): Promise<void> {
    return this.audit.record({
      actor,
      action,
      objectType: 'template',
      objectId: id ?? null,
      objectName: name,
      summary,
    });
  }
}

function templateNameOf(app: Pick<AppRow, 'templateId'>, names: ReadonlyMap<string, string>): string | null {
  return app.templateId === null ? null : (names.get(app.templateId) ?? null);
}

/** "services: 1 created; apps: 2 created, 1 updated; …" */
export function describe(report: ConfigImportReport): string {
  const parts = (['settings', 'services', 'templates', 'apps', 'proxies'] as const).flatMap((collection) => {
    const changes: readonly (ConfigObjectChange | ConfigProxyChange)[] = report[collection];
    if (changes.length === 0) return [];
    const counts = (['created', 'updated', 'deleted'] as const)
      .map((kind) => [kind, changes.filter((c) => c.kind === kind).length] as const)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${kind}`);
    return [`${collection}: ${counts.join(', ')}`];
  });
  return parts.length > 0 ? parts.join('; ') : 'nothing to change';
}
