import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type { AllowlistMap, ConfigDocument, ProxyDefaults } from '@arrbiter/contracts';
import { AppRow, AppsService } from '@arrbiter/server/apps';
import { generateProxyKey, keyDigest } from '@arrbiter/server/crypto';
import { ConnectService } from '@arrbiter/server/known-clients';
import { diffGrants, effectiveAllowlist, normaliseOverrides } from '@arrbiter/server/permissions';
import { DeclaredProxy, ProxiesService, ProxyDefaultsService, ProxyRow, rateLimitOf } from '@arrbiter/server/proxies';
import { ServiceRow, ServicesService } from '@arrbiter/server/services';
import type { AppsPlan } from './apps.planner';
import { Blocks, PlanContext, same, WriteContext } from './import-plan';
import type { ServiceAfter, ServicesPlan } from './services.planner';
import { storedTemplateName, TemplatesPlan } from './templates.planner';

export interface ProxiesPlan {
  readonly creates: { slug: string; baseUrl: string; settings: DeclaredProxy }[];
  readonly updates: { proxy: ProxyRow; declared: DeclaredProxy; effectiveBefore: AllowlistMap }[];
  readonly deletes: ProxyRow[];
  /** Ids of the stored proxies that go: pruned, or with their pruned app. */
  readonly leaving: ReadonlySet<string>;
}

const nameOf = (slug: string, service: ServiceAfter) => `${slug} → ${service.name}`;

const blockOf = (template: string | null | undefined, type: string, source: ReadonlyMap<string, Blocks>) =>
  (template ? source.get(template)?.[type] : undefined) ?? {};

type ConfigApp = NonNullable<ConfigDocument['apps']>[number];
type ConfigProxy = NonNullable<ConfigApp['proxies']>[number];

/** A key the document gives; `proxy`: the stored proxy whose key it replaces. */
interface NewKey {
  key: string;
  path: string;
  proxy?: ProxyRow;
}

/** What planning the proxies reads and builds up. */
interface Work {
  readonly context: PlanContext;
  readonly services: ServicesPlan;
  readonly templates: TemplatesPlan;
  readonly apps: AppsPlan;
  readonly defaults: ProxyDefaults;
  readonly serviceById: ReadonlyMap<string, ServiceRow>;
  readonly deletedApps: ReadonlySet<string>;
  /** Stored proxies already planned (listed, or pruned with their listed app). */
  readonly handled: Set<string>;
  readonly newKeys: NewKey[];
  readonly plan: { creates: ProxiesPlan['creates']; updates: ProxiesPlan['updates']; deletes: ProxyRow[] };
}

/** A key the document gives must not be another proxy's (one that stays: not `leaving`, not re-keyed). */
function checkKeys({ stored, problems }: PlanContext, newKeys: readonly NewKey[], leaving: ReadonlySet<string>): void {
  const appById = new Map(stored.apps.map((a) => [a.id, a]));
  const replaced = new Set(newKeys.flatMap(({ proxy }) => (proxy ? [proxy.id] : [])));
  const taken = new Map(
    stored.proxies.filter((p) => !leaving.has(p.id) && !replaced.has(p.id)).map((p) => [p.keyDigest, p]),
  );
  for (const { key, path } of newKeys) {
    const owner = taken.get(keyDigest(key));
    if (owner) {
      const app = appById.get(owner.appId);
      problems.push(`${path}: this key is already the key of another proxy of "${app?.slug ?? owner.appId}"`);
    }
  }
}

/**
 * The proxies each listed app declares, by app and service; with `prune`, the app's other proxies are
 * deleted. A proxy the document does not list is updated too when its template's grants change. A key
 * the document gives must not be another proxy's.
 */
@Injectable()
export class ProxiesPlanner {
  constructor(
    private readonly proxies: ProxiesService,
    private readonly defaults: ProxyDefaultsService,
    private readonly services: ServicesService,
    private readonly apps: AppsService,
    private readonly connect: ConnectService,
  ) {}

  async plan(
    context: PlanContext,
    services: ServicesPlan,
    templates: TemplatesPlan,
    apps: AppsPlan,
  ): Promise<ProxiesPlan> {
    const { document, stored } = context;
    const work: Work = {
      context,
      services,
      templates,
      apps,
      defaults: document.settings?.proxyDefaults ?? (await this.defaults.get()),
      serviceById: new Map(stored.services.map((s) => [s.id, s])),
      deletedApps: new Set(apps.deletes.map((a) => a.id)),
      handled: new Set<string>(),
      newKeys: [],
      plan: { creates: [], updates: [], deletes: [] },
    };
    for (const [i, app] of (document.apps ?? []).entries()) await this.planApp(work, i, app);
    this.planTemplateChanges(work);
    const leaving = new Set([
      ...work.plan.deletes.map((p) => p.id),
      ...stored.proxies.filter((p) => work.deletedApps.has(p.appId)).map((p) => p.id),
    ]);
    checkKeys(context, work.newKeys, leaving);
    return { ...work.plan, leaving };
  }

  /** The proxies one listed app declares (`apps[i].proxies`); with `prune`, its other proxies go. */
  private async planApp(work: Work, i: number, app: ConfigApp): Promise<void> {
    if (app.proxies === undefined) return;
    const storedApp = work.apps.bySlug.get(app.slug);
    const listed = new Map<string, string>();
    for (const [j, wanted] of app.proxies.entries()) {
      const path = `apps[${i}].proxies[${j}]`;
      const service = work.services.resolve(wanted.service, `${path}.service`);
      if (!service) continue;
      const first = listed.get(service.baseUrl);
      if (first !== undefined) {
        work.context.problems.push(`${path}.service: ${service.baseUrl} already has a proxy in this app (${first})`);
        continue;
      }
      listed.set(service.baseUrl, path);
      await this.planProxy(work, path, app.slug, storedApp, service, wanted);
    }
    if (work.context.prune && storedApp) this.pruneApp(work, app.slug, storedApp);
  }

  /**
   * One listed proxy at `path`: created, updated (with what changes) or unchanged. A new proxy without
   * `overrides` of an app connected as a known client gets that client's calls that are not sensitive.
   */
  private async planProxy(
    work: Work,
    path: string,
    slug: string,
    storedApp: AppRow | undefined,
    service: ServiceAfter,
    wanted: ConfigProxy,
  ): Promise<void> {
    const { context, templates, apps, defaults, plan } = work;
    const { stored, report } = context;
    const existing =
      storedApp && service.id
        ? stored.proxies.find((p) => p.appId === storedApp.id && p.serviceId === service.id)
        : undefined;
    const block = blockOf(apps.templates.get(slug), service.type, templates.blocksAfter);
    const client = apps.clients.get(slug) ?? null;
    const fromClient =
      !existing && wanted.overrides === undefined && client !== null
        ? await this.clientOverrides(work, `${path}.service`, client, service, block)
        : undefined;
    const declared: DeclaredProxy = {
      active: wanted.active ?? existing?.active ?? true,
      overrides: wanted.overrides ?? existing?.overrides ?? fromClient ?? {},
      rateLimit:
        wanted.rateLimit !== undefined ? wanted.rateLimit : existing ? rateLimitOf(existing) : defaults.rateLimit,
      scrub: wanted.scrub ?? existing?.scrub ?? defaults.scrub,
    };
    const effectiveAfter = effectiveAllowlist(block, declared.overrides);
    if (wanted.key !== undefined && existing?.keyDigest !== keyDigest(wanted.key)) {
      declared.key = wanted.key;
      work.newKeys.push({ key: wanted.key, path: `${path}.key`, proxy: existing });
    }
    if (!existing || !storedApp) {
      plan.creates.push({ slug, baseUrl: service.baseUrl, settings: declared });
      report.proxies.push({
        kind: 'created',
        name: nameOf(slug, service),
        app: slug,
        service: service.baseUrl,
        changes: [
          declared.active ? 'active' : 'inactive',
          ...(declared.key ? ['key given'] : ['new key']),
          ...(fromClient ? [`${client} calls`] : []),
        ],
        ...diffGrants({}, effectiveAfter),
      });
      return;
    }
    work.handled.add(existing.id);
    const before = effectiveAllowlist(
      blockOf(storedTemplateName(storedApp, templates.nameById), service.type, templates.blocksBefore),
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
      return;
    }
    plan.updates.push({ proxy: existing, declared, effectiveBefore: before });
    report.proxies.push({
      kind: 'updated',
      name: nameOf(slug, service),
      app: slug,
      service: service.baseUrl,
      changes,
      ...grants,
    });
  }

  /**
   * The overrides a new proxy of an app connected as `client` gets over `block` (`ConnectService`, as
   * connecting grants them); undefined, with a problem at `path`, when the client makes no calls to the
   * service's type. The service's API versions: the stored service's, or what its upstream said.
   */
  private async clientOverrides(
    { context, services, serviceById }: Work,
    path: string,
    client: string,
    service: ServiceAfter,
    block: AllowlistMap,
  ): Promise<AllowlistMap | undefined> {
    const apiVersions =
      (service.id !== undefined ? serviceById.get(service.id)?.apiVersions : undefined) ??
      services.creates.find((c) => c.baseUrl === service.baseUrl)?.discovery.apiVersions ??
      [];
    try {
      return await this.connect.overridesFor(client, { type: service.type, apiVersions }, block);
    } catch (error) {
      // An unknown client is a problem of `apps[i].client` already (the apps planner's).
      if (error instanceof NotFoundException) return undefined;
      if (!(error instanceof BadRequestException)) throw error;
      const message = (error.getResponse() as { message?: string | string[] }).message;
      context.problems.push(`${path}: ${[message ?? error.message].flat().join('; ')}`);
      return undefined;
    }
  }

  /** With `prune`: the listed app's stored proxies the document does not list. */
  private pruneApp({ context, serviceById, handled, plan }: Work, slug: string, storedApp: AppRow): void {
    for (const proxy of context.stored.proxies) {
      if (proxy.appId !== storedApp.id || handled.has(proxy.id)) continue;
      const service = serviceById.get(proxy.serviceId);
      handled.add(proxy.id);
      plan.deletes.push(proxy);
      context.report.proxies.push({
        kind: 'deleted',
        name: `${slug} → ${service?.name ?? proxy.serviceId}`,
        app: slug,
        service: service?.baseUrl ?? proxy.serviceId,
        changes: [],
        added: [],
        removed: [],
      });
    }
  }

  /** The proxies the document does not list whose effective allowlist its templates change. */
  private planTemplateChanges({ context, templates, apps, serviceById, deletedApps, handled, plan }: Work): void {
    const { stored, report } = context;
    const appById = new Map(stored.apps.map((a) => [a.id, a]));
    for (const proxy of stored.proxies) {
      const app = appById.get(proxy.appId);
      const service = serviceById.get(proxy.serviceId);
      if (handled.has(proxy.id) || !app || !service || deletedApps.has(app.id)) continue;
      const before = effectiveAllowlist(
        blockOf(storedTemplateName(app, templates.nameById), service.type, templates.blocksBefore),
        proxy.overrides,
      );
      const afterGrants = effectiveAllowlist(
        blockOf(apps.templates.get(app.slug), service.type, templates.blocksAfter),
        proxy.overrides,
      );
      const grants = diffGrants(before, afterGrants);
      if (grants.added.length + grants.removed.length === 0) continue;
      plan.updates.push({
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
  }

  /** Deletes the pruned proxies (first: before their apps and services go). */
  async remove(plan: ProxiesPlan, { actor }: WriteContext): Promise<void> {
    for (const proxy of plan.deletes) await this.proxies.removeInTransaction(proxy.id, actor);
  }

  /**
   * Updates proxies (each with an `import` revision), then creates the new ones, once their apps and
   * services exist.
   */
  async write(plan: ProxiesPlan, { actor, serviceIds, appIds }: WriteContext): Promise<void> {
    for (const { proxy, declared, effectiveBefore } of plan.updates)
      await this.proxies.applyDeclaredInTransaction(proxy.id, declared, actor, effectiveBefore);
    const knownServices = new Map((await this.services.all()).map((s) => [s.baseUrl, s.id]));
    const knownApps = new Map((await this.apps.all()).map((a) => [a.slug, a.id]));
    for (const { slug, baseUrl, settings } of plan.creates) {
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
  }
}
