import { Injectable } from '@nestjs/common';
import type { Grant } from '@arrbiter/contracts';
import { ChangesService } from '@arrbiter/server/history';
import { diffGrants, normaliseOverrides } from '@arrbiter/server/permissions';
import { TemplateRow, TemplatesService } from '@arrbiter/server/templates';
import { Blocks, PlanContext, same, WriteContext } from './import-plan';

export interface TemplatesPlan {
  readonly creates: { name: string; source: 'local' | 'repository'; blocks: Blocks }[];
  readonly updates: { template: TemplateRow; blocks: Blocks }[];
  /** Filled by `prune`, once the apps' templates are known. */
  readonly deletes: TemplateRow[];
  /** The names the document lists. */
  readonly listed: ReadonlySet<string>;
  /** Template id → name, as stored. */
  readonly nameById: ReadonlyMap<string, string>;
  /** Template name → blocks, as stored. */
  readonly blocksBefore: ReadonlyMap<string, Blocks>;
  /** Template name → blocks once the document is applied. */
  readonly blocksAfter: ReadonlyMap<string, Blocks>;
}

function normaliseBlocks(blocks: Blocks): Blocks {
  return Object.fromEntries(
    Object.entries(blocks)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, block]) => [type, normaliseOverrides(block)]),
  );
}

function grantCount(grants: readonly Grant[], verb: string): string {
  return `${grants.length} grant${grants.length === 1 ? '' : 's'} ${verb}`;
}

/**
 * The document's `templates`, by name: local ones are the document's; a repository one is created only
 * when missing here (a template sync keeps it up to date).
 */
@Injectable()
export class TemplatesPlanner {
  constructor(
    private readonly templates: TemplatesService,
    private readonly audit: ChangesService,
  ) {}

  plan({ document, stored, report, problems }: PlanContext): TemplatesPlan {
    const creates: TemplatesPlan['creates'] = [];
    const updates: TemplatesPlan['updates'] = [];
    const templateByName = new Map(stored.templates.map((t) => [t.name, t]));
    const blocksAfter = new Map<string, Blocks>(stored.templates.map((t) => [t.name, t.blocks]));
    const listed = new Set<string>();
    for (const [i, wanted] of (document.templates ?? []).entries()) {
      const source = wanted.source ?? 'local';
      const template = templateByName.get(wanted.name);
      listed.add(wanted.name);
      if (!template) {
        blocksAfter.set(wanted.name, wanted.blocks);
        creates.push({ name: wanted.name, source, blocks: wanted.blocks });
        report.templates.push({
          kind: 'created',
          name: wanted.name,
          changes: [source, ...Object.keys(wanted.blocks).sort()],
        });
      } else if (template.source !== source) {
        problems.push(
          `templates[${i}].source: "${wanted.name}" is a ${template.source} template on this instance, not a ${source} one`,
        );
      } else if (source === 'repository' || same(normaliseBlocks(template.blocks), normaliseBlocks(wanted.blocks))) {
        report.unchanged.templates += 1;
      } else {
        blocksAfter.set(wanted.name, wanted.blocks);
        updates.push({ template, blocks: wanted.blocks });
        const types = [...new Set([...Object.keys(template.blocks), ...Object.keys(wanted.blocks)])].sort();
        report.templates.push({
          kind: 'updated',
          name: wanted.name,
          changes: types.flatMap((type) => {
            const { added, removed } = diffGrants(template.blocks[type] ?? {}, wanted.blocks[type] ?? {});
            return added.length + removed.length > 0
              ? [`${type}: ${grantCount(added, 'added')}, ${grantCount(removed, 'removed')}`]
              : [];
          }),
        });
      }
    }
    return {
      creates,
      updates,
      deletes: [],
      listed,
      nameById: new Map(stored.templates.map((t) => [t.id, t.name])),
      blocksBefore: new Map(stored.templates.map((t) => [t.name, t.blocks])),
      blocksAfter,
    };
  }

  /**
   * With `prune` and a `templates` list: deletes the local templates it leaves out, unless an app that
   * stays uses one (`appTemplates`: slug → template name once the document is applied).
   */
  prune(
    { document, prune, stored, report, problems }: PlanContext,
    plan: TemplatesPlan,
    appTemplates: ReadonlyMap<string, string | null>,
  ): void {
    if (!prune || document.templates === undefined) return;
    const used = new Set([...appTemplates.values()].filter((name): name is string => name !== null));
    for (const template of stored.templates) {
      if (template.source !== 'local' || plan.listed.has(template.name)) continue;
      if (used.has(template.name)) {
        const users = [...appTemplates].filter(([, name]) => name === template.name).map(([slug]) => slug);
        problems.push(
          `templates: "${template.name}" is not listed but apps use it (${users.slice(0, 5).join(', ')}): list it, or change their template`,
        );
        continue;
      }
      plan.deletes.push(template);
      report.templates.push({ kind: 'deleted', name: template.name, changes: [] });
    }
  }

  /** Creates and updates templates (before the apps that use them); `context.templateIds` then holds every id. */
  async write(plan: TemplatesPlan, context: WriteContext): Promise<void> {
    const { actor } = context;
    for (const { name, source, blocks } of plan.creates) {
      if (source === 'local') await this.templates.createLocal(name, blocks);
      else await this.templates.upsertRepositoryTemplates(new Map([[name, blocks]]));
      await this.record(
        actor,
        'template.created',
        name,
        `${source === 'local' ? 'Local' : 'Repository'} template "${name}" created by a configuration import (${Object.keys(blocks).sort().join(', ') || 'no blocks'})`,
      );
    }
    for (const { template, blocks } of plan.updates) {
      await this.templates.replaceLocalBlocks(template.id, blocks);
      await this.record(
        actor,
        'template.updated',
        template.name,
        `Local template "${template.name}" changed by a configuration import`,
        template.id,
      );
    }
    for (const template of await this.templates.stored()) context.templateIds.set(template.name, template.id);
  }

  /** Deletes the pruned templates (after the apps: none uses them any more). */
  async remove(plan: TemplatesPlan, { actor }: WriteContext): Promise<void> {
    if (plan.deletes.length === 0) return;
    await this.templates.deleteUnused(plan.deletes.map((t) => t.id));
    for (const template of plan.deletes)
      await this.record(
        actor,
        'template.deleted',
        template.name,
        `Local template "${template.name}" deleted by a configuration import (prune)`,
        template.id,
      );
  }

  private record(actor: string, action: string, name: string, summary: string, id?: string): Promise<void> {
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

/** The name of an app's stored template, or null. */
export function storedTemplateName(
  app: { templateId: string | null },
  nameById: ReadonlyMap<string, string>,
): string | null {
  return app.templateId === null ? null : (nameById.get(app.templateId) ?? null);
}
