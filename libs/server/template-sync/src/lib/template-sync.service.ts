import { join } from 'node:path';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import {
  BadGatewayException,
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  Optional,
} from '@nestjs/common';
import type { TemplateBlockChange, TemplateDto, TemplateProblem, TemplateSyncReport } from '@arrbiter/contracts';
import { TEMPLATE_SYNC_LOCK, tryTransactionLock } from '@arrbiter/server/database';
import { AppsService } from '@arrbiter/server/apps';
import { AppConfig, Clock, httpOrigin } from '@arrbiter/server/config';
import { ChangesService, RevisionRecord, RevisionsService } from '@arrbiter/server/history';
import { isUniqueViolation } from '@arrbiter/server/http';
import { Metrics } from '@arrbiter/server/metrics';
import { Notifier } from '@arrbiter/server/notifications';
import { diffGrants, effectiveAllowlist } from '@arrbiter/server/permissions';
import { ProxiesService } from '@arrbiter/server/proxies';
import { ServicesService } from '@arrbiter/server/services';
import {
  normaliseAllowlist,
  SERVICE_TYPES,
  TEMPLATE_NAME,
  TemplateRow,
  TemplatesService,
  toTemplateDto,
} from '@arrbiter/server/templates';
import {
  DEFAULT_FETCH_LIMITS,
  FetchedTemplates,
  FetchLimits,
  fetchTemplateRepository,
  RepositoryAuth,
  RepositoryFetchError,
} from './repository-fetch';
import { localDirectoryRules } from './local-directory';
import { PendingTemplateChangesService } from './pending-template-changes.service';
import { RepositorySettingsService } from './repository-settings.service';
import { Blocks, sameAdditions, TemplateImpact, withoutAdditions } from './template-impact';

function sameBlocks(a: Blocks, b: Blocks): boolean {
  return JSON.stringify(normaliseBlocks(a)) === JSON.stringify(normaliseBlocks(b));
}

function normaliseBlocks(blocks: Blocks): Blocks {
  return Object.fromEntries(
    Object.entries(blocks)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, block]) => [type, normaliseAllowlist(block)]),
  );
}

function blockChanges(before: Blocks, after: Blocks): TemplateBlockChange[] {
  const types = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return types
    .map((serviceType) => ({ serviceType, ...diffGrants(before[serviceType] ?? {}, after[serviceType] ?? {}) }))
    .filter((change) => change.added.length > 0 || change.removed.length > 0);
}

/** What a sync will write, computed under the lock from the repository and the stored templates. */
interface Plan {
  report: TemplateSyncReport;
  /** Repository templates to create or update, with their new blocks. */
  upserts: Map<string, Blocks>;
  markRemoved: TemplateRow[];
  deletions: TemplateRow[];
  /** One `template-sync` revision per proxy whose effective allowlist changes. */
  revisions: RevisionRecord[];
  /** Widenings of templates in use to hold (new or replacing what was held), by template id. */
  hold: Map<string, TemplateBlockChange[]>;
  /** Templates whose held change goes: applied in full, gone from the repository, or no longer a widening. */
  dropHeld: string[];
}

/**
 * Template repository sync: fetch, validate every file, diff against the stored
 * templates, apply in one transaction with a `template-sync` revision for each proxy whose effective
 * allowlist changes, and report. A dry run computes the same report and writes nothing.
 *
 * A synced change never grants anything by itself to a template some app uses: the grants it would
 * add are held for an editor (`PendingTemplateChangesService`), one held change per template, replaced
 * by a newer sync; its removals, and every change to a template no app uses, apply at once.
 */
@Injectable()
export class TemplateSyncService {
  private readonly logger = new Logger(TemplateSyncService.name);
  private running = false;
  /** Fetch limits (tests make them small). */
  limits: FetchLimits = DEFAULT_FETCH_LIMITS;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly settings: RepositorySettingsService,
    private readonly templates: TemplatesService,
    private readonly apps: AppsService,
    private readonly proxies: ProxiesService,
    private readonly services: ServicesService,
    private readonly revisions: RevisionsService,
    private readonly audit: ChangesService,
    private readonly pending: PendingTemplateChangesService,
    private readonly impact: TemplateImpact,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly notifier: Notifier,
    @Optional() @Inject(Metrics) private readonly metrics: Metrics | null = null,
  ) {}

  /** A sync (not a dry run) counts in `arrbiter_template_sync_total`: `skipped` when another was running. */
  async sync(options: { dryRun: boolean; actor: string }): Promise<TemplateSyncReport> {
    try {
      if (this.running)
        throw new ConflictException('A template sync is already running: try again when it has finished');
      this.running = true;
      try {
        const report = await this.run(options);
        if (!options.dryRun) this.metrics?.templateSyncs.inc({ result: 'success' });
        return report;
      } finally {
        this.running = false;
      }
    } catch (error) {
      if (!options.dryRun)
        this.metrics?.templateSyncs.inc({ result: error instanceof ConflictException ? 'skipped' : 'failure' });
      throw error;
    }
  }

  private async run({ dryRun, actor }: { dryRun: boolean; actor: string }): Promise<TemplateSyncReport> {
    const settings = await this.settings.get();
    if (settings.url === '') throw new BadRequestException('No template repository is configured');
    let fetched: FetchedTemplates;
    try {
      fetched = await fetchTemplateRepository(
        settings,
        join(this.config.dataDir, 'template-repository'),
        this.limits,
        localDirectoryRules(this.config),
        this.repositoryAuth(settings.url),
      );
    } catch (error) {
      if (!(error instanceof RepositoryFetchError)) throw error;
      if (!dryRun) await this.failed(actor, error.message);
      throw new BadGatewayException(`Templates unchanged: ${error.message}`);
    }
    const plan = await this.txHost.withTransaction(async () => {
      if (!(await tryTransactionLock(this.txHost.tx, TEMPLATE_SYNC_LOCK)))
        throw new ConflictException('A template sync is already running: try again when it has finished');
      const plan = await this.plan(fetched, dryRun);
      if (!dryRun) await this.apply(plan, actor);
      return plan;
    });
    if (!dryRun) {
      await this.templates.published();
      await this.settings.recordLastSync({
        at: this.clock.date().toISOString(),
        ok: true,
        message: this.describe(plan.report),
      });
      this.notifyChanged(plan.report, actor);
    }
    return plan.report;
  }

  /**
   * `TEMPLATE_REPOSITORY_TOKEN`, for a URL of the origin the operator named in `TEMPLATE_REPOSITORY`
   * only: a repository set elsewhere (the admin API) never receives it.
   */
  private repositoryAuth(url: string): RepositoryAuth | undefined {
    const auth = this.config.templateRepositoryAuth;
    return auth && httpOrigin(url) === auth.origin ? auth : undefined;
  }

  private async plan(fetched: FetchedTemplates, dryRun: boolean): Promise<Plan> {
    const stored = await this.templates.stored();
    const local = new Set(stored.filter((t) => t.source === 'local').map((t) => t.name));
    const repository = new Map(stored.filter((t) => t.source === 'repository').map((t) => [t.name, t]));
    const problems: TemplateProblem[] = [...fetched.problems];

    // A file that failed validation keeps what was stored for it: a bad file never takes access away.
    const kept = new Map<string, Set<string>>();
    for (const problem of fetched.problems) {
      const match = /^([^/]+)\/(.+)\.json$/.exec(problem.file);
      if (!match || !(SERVICE_TYPES as readonly string[]).includes(match[1]) || !TEMPLATE_NAME.test(match[2])) continue;
      kept.set(match[2], (kept.get(match[2]) ?? new Set()).add(match[1]));
    }
    const incoming = new Map<string, Blocks>();
    for (const [name, blocks] of fetched.templates) incoming.set(name, { ...blocks });
    for (const [name, types] of kept) {
      const known = repository.get(name);
      if (!known) continue;
      const blocks = incoming.get(name) ?? {};
      for (const type of types) if (known.blocks[type]) blocks[type] = known.blocks[type];
      incoming.set(name, blocks);
    }

    const report: TemplateSyncReport = {
      dryRun,
      commit: fetched.commit,
      added: [],
      changed: [],
      deleted: [],
      keptRemoved: [],
      unchanged: 0,
      problems,
      proxies: [],
      pending: [],
    };
    const upserts = new Map<string, Blocks>();
    const changedBlocks = new Map<string, { before: Blocks; after: Blocks }>();
    const hold = new Map<string, TemplateBlockChange[]>();
    const dropHeld: string[] = [];
    const held = await this.pending.stored();
    const gone = [...repository.values()].filter((t) => !incoming.has(t.name));
    const used = await this.usedTemplateIds([...repository.values()].map((t) => t.id));
    for (const [name, blocks] of incoming) {
      if (local.has(name)) {
        problems.push({ file: `*/${name}.json`, reason: 'a local template has this name: the local one is kept' });
        continue;
      }
      const known = repository.get(name);
      if (!known) {
        report.added.push(name);
        upserts.set(name, blocks);
        continue;
      }
      // A template in use takes what the repository removes at once; what it adds waits for an editor.
      const diff = blockChanges(known.blocks, blocks);
      const widens = used.has(known.id) && diff.some((change) => change.added.length > 0);
      const applied = widens ? withoutAdditions(blocks, diff, known.blocks) : blocks;
      const before = held.get(known.id);
      let holding = false;
      if (widens) {
        // The same additions as held (or dismissed) before: left as they are.
        if (!before || !sameAdditions(before.blocks, diff)) {
          hold.set(known.id, diff);
          report.pending.push({ name, blocks: diff });
          holding = true;
        }
      } else if (before) {
        dropHeld.push(known.id);
      }
      if (!sameBlocks(known.blocks, applied) || known.removed) {
        report.changed.push({ name, blocks: blockChanges(known.blocks, applied) });
        upserts.set(name, applied);
        changedBlocks.set(known.id, { before: known.blocks, after: applied });
      } else if (!holding) {
        report.unchanged += 1;
      }
    }
    const markRemoved = gone.filter((t) => used.has(t.id));
    const deletions = gone.filter((t) => !used.has(t.id));
    for (const template of markRemoved) if (held.has(template.id)) dropHeld.push(template.id);
    report.keptRemoved = markRemoved.map((t) => t.name);
    report.deleted = deletions.map((t) => t.name);
    const affected = await this.impact.of(changedBlocks);
    report.proxies = affected.map(({ change }) => change);
    return {
      report,
      upserts,
      markRemoved,
      deletions,
      revisions: affected.map(({ revision }) => revision),
      hold,
      dropHeld,
    };
  }

  private async apply(plan: Plan, actor: string): Promise<void> {
    await this.templates.upsertRepositoryTemplates(plan.upserts);
    await this.templates.markRemoved(plan.markRemoved.map((t) => t.id));
    await this.templates.deleteUnused(plan.deletions.map((t) => t.id));
    await this.pending.drop(plan.dropHeld);
    for (const [templateId, blocks] of plan.hold) await this.pending.hold(templateId, blocks, plan.report.commit);
    for (const revision of plan.revisions) await this.revisions.record({ ...revision, author: actor });
    await this.audit.record({
      actor,
      action: 'template.synced',
      objectType: 'template',
      objectName: 'Template repository',
      summary: this.describe(plan.report),
    });
  }

  private async usedTemplateIds(ids: string[]): Promise<Set<string>> {
    return new Set((await this.apps.ofTemplates(ids)).map((a) => a.templateId as string));
  }

  /** `template-sync.changed` when a sync added, changed or deleted templates, or changed allowlists. */
  private notifyChanged(report: TemplateSyncReport, actor: string): void {
    const changed = report.changed.map((c) => c.name);
    if (
      report.added.length + changed.length + report.deleted.length + report.proxies.length + report.pending.length ===
      0
    )
      return;
    this.notifier.raise({
      type: 'template-sync.changed',
      added: report.added,
      changed,
      deleted: report.deleted,
      proxies: report.proxies.length,
      commit: report.commit,
      summary: this.describe(report),
      actor,
    });
  }

  private async failed(actor: string, message: string): Promise<void> {
    this.logger.warn(`Template sync failed: ${message}`);
    await this.settings.recordLastSync({ at: this.clock.date().toISOString(), ok: false, message });
    await this.audit.record({
      actor,
      action: 'template.sync-failed',
      objectType: 'template',
      objectName: 'Template repository',
      summary: `Template sync failed, nothing changed: ${message}`,
    });
    this.notifier.raise({ type: 'template-sync.failed', error: message, actor });
  }

  private describe(report: TemplateSyncReport): string {
    const parts = [
      `${report.added.length} added`,
      `${report.changed.length} changed`,
      `${report.deleted.length} deleted`,
      `${report.keptRemoved.length} kept though removed`,
      `${report.unchanged} unchanged`,
    ];
    const tail = [
      report.proxies.length > 0 ? `${report.proxies.length} proxies' allowlists changed` : '',
      report.pending.length > 0
        ? `${report.pending.length} widening${report.pending.length === 1 ? '' : 's'} held for review`
        : '',
      report.problems.length > 0 ? `${report.problems.length} files skipped` : '',
      report.commit ? `commit ${report.commit.slice(0, 12)}` : '',
    ].filter(Boolean);
    return `Templates synced: ${parts.join(', ')}${tail.length > 0 ? `; ${tail.join('; ')}` : ''}`;
  }

  /**
   * Saves an app's current effective allowlists (one block per service type of its proxies) as a
   * local template, which syncs never overwrite.
   */
  async saveAppAsTemplate(appId: string, name: string, actor: string): Promise<TemplateDto> {
    const template = await this.txHost.withTransaction(async () => {
      const app = await this.apps.find(appId);
      const proxies = await this.proxies.ofApps([appId]);
      if (proxies.length === 0) throw new BadRequestException('The app has no proxies: there is nothing to save');
      const current = app.templateId ? await this.templates.find(app.templateId) : null;
      const blocks: Blocks = {};
      for (const proxy of proxies) {
        const service = await this.services.find(proxy.serviceId);
        const effective = effectiveAllowlist(current?.blocks[service.type] ?? {}, proxy.overrides);
        // Two services of one type: their grants are joined.
        const block = blocks[service.type] ?? {};
        for (const [path, methods] of Object.entries(effective)) block[path] = [...(block[path] ?? []), ...methods];
        blocks[service.type] = normaliseAllowlist(block);
      }
      let saved: TemplateRow;
      try {
        saved = await this.templates.createLocal(name, blocks);
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictException(`A template named "${name}" already exists`);
        throw error;
      }
      await this.audit.record({
        actor,
        action: 'template.saved-from-app',
        objectType: 'template',
        objectId: saved.id,
        objectName: name,
        appId,
        summary: `Local template "${name}" saved from the effective allowlists of "${app.name}" (${Object.keys(blocks).join(', ')})`,
      });
      return saved;
    });
    await this.templates.published();
    return toTemplateDto(template, 0);
  }
}
