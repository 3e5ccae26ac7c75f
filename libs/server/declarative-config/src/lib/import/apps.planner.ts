import { Injectable } from '@nestjs/common';
import { AppRow, AppsService } from '@arrbiter/server/apps';
import { KnownClientsService } from '@arrbiter/server/known-clients';
import type { PlanContext, WriteContext } from './import-plan';
import { storedTemplateName, TemplatesPlan } from './templates.planner';

export interface AppsPlan {
  readonly creates: { slug: string; name: string; template: string | null; active: boolean; client: string | null }[];
  readonly updates: { app: AppRow; name: string; template: string | null; active: boolean }[];
  readonly deletes: AppRow[];
  /** Stored apps by slug. */
  readonly bySlug: ReadonlyMap<string, AppRow>;
  /** Slug → template name of each app once the document is applied (pruned apps left out). */
  readonly templates: ReadonlyMap<string, string | null>;
  /**
   * Slug → the known client each app is connected as once the document is applied: `client` of a new
   * app, the stored one of an existing app (set once, at creation).
   */
  readonly clients: ReadonlyMap<string, string | null>;
}

/** The document's `apps` (without their proxies), by slug; with `prune`, the apps it leaves out are deleted. */
@Injectable()
export class AppsPlanner {
  constructor(
    private readonly apps: AppsService,
    private readonly known: KnownClientsService,
  ) {}

  plan({ document, prune, stored, report, problems }: PlanContext, templates: TemplatesPlan): AppsPlan {
    const plan = {
      creates: [] as AppsPlan['creates'],
      updates: [] as AppsPlan['updates'],
      deletes: [] as AppRow[],
      bySlug: new Map(stored.apps.map((a) => [a.slug, a])),
      templates: new Map<string, string | null>(
        stored.apps.map((a) => [a.slug, storedTemplateName(a, templates.nameById)]),
      ),
      clients: new Map<string, string | null>(stored.apps.map((a) => [a.slug, a.knownClientId])),
    };
    const knownIds = new Set(this.known.list().map((c) => c.id));
    const listed = new Set<string>();
    for (const [i, wanted] of (document.apps ?? []).entries()) {
      const app = plan.bySlug.get(wanted.slug);
      listed.add(wanted.slug);
      const template = wanted.template !== undefined ? wanted.template : (plan.templates.get(wanted.slug) ?? null);
      if (template !== null && !templates.blocksAfter.has(template)) {
        problems.push(
          `apps[${i}].template: no template named "${template}" here or under templates (a repository template comes from a template sync, or from a document exported with it)`,
        );
      }
      plan.templates.set(wanted.slug, template);
      if (wanted.client !== undefined && !knownIds.has(wanted.client))
        problems.push(
          `apps[${i}].client: no known client "${wanted.client}" (GET /api/admin/v1/known-clients lists them: ${[...knownIds].join(', ')})`,
        );
      const active = wanted.active ?? app?.active ?? true;
      if (!app) {
        const client = wanted.client ?? null;
        plan.clients.set(wanted.slug, client);
        plan.creates.push({ slug: wanted.slug, name: wanted.name, template, active, client });
        report.apps.push({
          kind: 'created',
          name: wanted.slug,
          changes: [
            template === null ? 'no template' : `template "${template}"`,
            ...(client !== null ? [`client ${client}`] : []),
            active ? 'active' : 'inactive',
          ],
        });
        continue;
      }
      const changes = [
        ...(app.name !== wanted.name ? ['name'] : []),
        ...((plan.templates.get(app.slug) ?? null) !== storedTemplateName(app, templates.nameById) ? ['template'] : []),
        ...(app.active !== active ? [active ? 'activated' : 'deactivated'] : []),
      ];
      if (changes.length === 0) report.unchanged.apps += 1;
      else {
        plan.updates.push({ app, name: wanted.name, template, active });
        report.apps.push({ kind: 'updated', name: app.slug, changes });
      }
    }
    if (prune && document.apps !== undefined) {
      for (const app of stored.apps) {
        if (listed.has(app.slug)) continue;
        plan.deletes.push(app);
        plan.templates.delete(app.slug);
        plan.clients.delete(app.slug);
        const count = stored.proxies.filter((p) => p.appId === app.id).length;
        report.apps.push({ kind: 'deleted', name: app.slug, changes: [`with its ${count} proxies`] });
      }
    }
    return plan;
  }

  /** Deletes the pruned apps, with their proxies (after their listed proxies, before the apps are written). */
  async remove(plan: AppsPlan, { actor }: WriteContext): Promise<void> {
    for (const app of plan.deletes) await this.apps.removeInTransaction(app.id, actor);
  }

  /** Creates and updates apps (after the templates they use); `context.appIds` then holds their ids. */
  async write(plan: AppsPlan, { actor, templateIds, appIds }: WriteContext): Promise<void> {
    const templateId = (name: string | null) => (name === null ? null : (templateIds.get(name) ?? null));
    for (const app of plan.creates) {
      const created = await this.apps.createInTransaction(
        {
          name: app.name,
          slug: app.slug,
          templateId: templateId(app.template),
          active: app.active,
          knownClientId: app.client,
        },
        actor,
      );
      appIds.set(app.slug, created.id);
    }
    for (const { app, name, template, active } of plan.updates) {
      await this.apps.updateInTransaction(app.id, { name, templateId: templateId(template), active }, actor);
      appIds.set(app.slug, app.id);
    }
  }
}
