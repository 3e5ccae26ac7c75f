import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, Injectable } from '@nestjs/common';
import type { ConfigDocument, ConfigImportReport, ConfigObjectChange, ConfigProxyChange } from '@arrbiter/contracts';
import { AppsService } from '@arrbiter/server/apps';
import { ChangeBus, CONFIG_IMPORT_LOCK } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { ProxiesService } from '@arrbiter/server/proxies';
import { ServicesService } from '@arrbiter/server/services';
import { TemplatesService } from '@arrbiter/server/templates';
import { AppsPlan, AppsPlanner } from './import/apps.planner';
import { emptyReport, ImportOptions, PlanContext, WriteContext } from './import/import-plan';
import { ProxiesPlan, ProxiesPlanner } from './import/proxies.planner';
import { Discovered, ServicesPlan, ServicesPlanner } from './import/services.planner';
import { SettingsPlan, SettingsPlanner } from './import/settings.planner';
import { TemplatesPlan, TemplatesPlanner } from './import/templates.planner';

export type { ImportOptions } from './import/import-plan';

/** What applying the document writes, worked out (and checked) before the first write: one part per kind. */
interface Plan {
  report: ConfigImportReport;
  settings: SettingsPlan;
  services: ServicesPlan;
  templates: TemplatesPlan;
  apps: AppsPlan;
  proxies: ProxiesPlan;
}

/**
 * Applies a declarative configuration document: reads the instance through the owning modules'
 * services, works out every change (and every problem, reported with its place in the document)
 * before writing anything, then writes them in one transaction: each proxy it changes gets an
 * `import` revision, and one recent change names who imported. Upstreams with a new key are
 * discovered first, outside the transaction: one that does not answer stops the import before any
 * write. A dry run reports the same changes and writes nothing.
 *
 * Each kind has its planner (`import/*.planner.ts`): `plan` compares the document's part with the
 * instance, adding to the report and to the problems; `write` / `remove` apply that part. This service
 * runs them in dependency order.
 */
@Injectable()
export class ConfigImportService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly services: ServicesService,
    private readonly templates: TemplatesService,
    private readonly apps: AppsService,
    private readonly proxies: ProxiesService,
    private readonly audit: ChangesService,
    private readonly changes: ChangeBus,
    private readonly settingsPlanner: SettingsPlanner,
    private readonly servicesPlanner: ServicesPlanner,
    private readonly templatesPlanner: TemplatesPlanner,
    private readonly appsPlanner: AppsPlanner,
    private readonly proxiesPlanner: ProxiesPlanner,
  ) {}

  /** A validated document (`validateDocument`) applied, or for a dry run only compared. */
  async import(document: ConfigDocument, options: ImportOptions): Promise<ConfigImportReport> {
    const discovered = await this.servicesPlanner.discover(document);
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

  /**
   * Every planner in turn, each seeing what the earlier ones decided (a proxy names a service the
   * document creates, an app a template it creates); the prunes last, once it is known what stays.
   * Throws a 400 naming every problem (at most 50) before anything is written.
   */
  private async plan(
    document: ConfigDocument,
    discovered: ReadonlyMap<string, Discovered>,
    options: ImportOptions,
  ): Promise<Plan> {
    const prune = document.prune === true;
    const context: PlanContext = {
      document,
      options,
      prune,
      stored: {
        services: await this.services.all(),
        templates: await this.templates.stored(),
        apps: await this.apps.all(),
        proxies: await this.proxies.all(),
      },
      report: emptyReport(options.dryRun, prune),
      problems: [],
    };
    const settings = await this.settingsPlanner.plan(context);
    const services = this.servicesPlanner.plan(context, discovered);
    const templates = this.templatesPlanner.plan(context);
    const apps = this.appsPlanner.plan(context, templates);
    const proxies = await this.proxiesPlanner.plan(context, services, templates, apps);
    // Pruned templates and services: only what nothing that stays uses.
    this.templatesPlanner.prune(context, templates, apps.templates);
    this.servicesPlanner.prune(
      context,
      services,
      proxies.leaving,
      proxies.creates.map((p) => p.baseUrl),
    );

    const { report, problems } = context;
    if (problems.length > 0) throw new BadRequestException(problems.slice(0, 50));
    report.changed = (['settings', 'services', 'templates', 'apps', 'proxies'] as const).some(
      (k) => report[k].length > 0,
    );
    return { report, settings, services, templates, apps, proxies };
  }

  /**
   * Writes the plan in the caller's transaction, what others refer to before what refers to it, and
   * referrers removed before what they refer to. Returns the services whose catalogs to fetch once committed.
   */
  private async apply(plan: Plan, { actor, operator, source }: ImportOptions): Promise<WriteContext['written']> {
    const context: WriteContext = {
      actor,
      operator,
      written: [],
      serviceIds: new Map(),
      templateIds: new Map(),
      appIds: new Map(),
    };
    await this.settingsPlanner.write(plan.settings, context);
    await this.servicesPlanner.write(plan.services, context);
    await this.templatesPlanner.write(plan.templates, context);
    await this.proxiesPlanner.remove(plan.proxies, context);
    await this.appsPlanner.remove(plan.apps, context);
    await this.appsPlanner.write(plan.apps, context);
    await this.proxiesPlanner.write(plan.proxies, context);
    await this.templatesPlanner.remove(plan.templates, context);
    await this.servicesPlanner.remove(plan.services, context);

    await this.audit.record({
      actor,
      action: 'config.imported',
      objectType: 'config',
      objectName: 'Configuration',
      summary: `Configuration imported from ${source}: ${describe(plan.report)}`,
    });
    return context.written;
  }
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
