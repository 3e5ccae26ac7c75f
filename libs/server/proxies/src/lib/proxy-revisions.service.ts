import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, ConflictException, Injectable } from '@nestjs/common';
import type { AllowlistMap, Page, RevisionDiffResponse, RevisionDto, RevisionKind } from '@arrbiter/contracts';
import type { Grant } from '@arrbiter/contracts';
import { ChangeBus } from '@arrbiter/server/database';
import { RevisionRow, RevisionsService, toRevisionDto } from '@arrbiter/server/history';
import { PageQueryDto } from '@arrbiter/server/http';
import {
  describeSummary,
  effectiveAllowlist,
  overridesWithChanges,
  restoreDiff,
  summarize,
} from '@arrbiter/server/permissions';
import { ProxyContext, ProxyStore } from './proxy-store';

/** One change of a proxy's overrides or active state, recorded as a revision. */
export interface Revise {
  kind: RevisionKind;
  actor: string;
  /** Audit action, e.g. `proxy.config-saved`. */
  action: string;
  /** Heads the revision's summary (by default the kind's title, e.g. "Configuration saved"). */
  title?: string;
  /**
   * Sets the new overrides and active state on `context.proxy`; restores return the restored revision's
   * id. What it throws rolls the whole write back.
   */
  apply: (context: ProxyContext) => Promise<{ restoredFrom: string } | void> | void;
  /** More writes in the same transaction (a warning's status), through the writer's own service. */
  alongside?: () => Promise<void>;
}

/**
 * Revisions of a proxy: every change of its overrides or active state is one, written with the change
 * in one `TransactionHost` transaction; listing, comparing and restoring them.
 */
@Injectable()
export class ProxyRevisionsService {
  constructor(
    private readonly store: ProxyStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly revisions: RevisionsService,
    private readonly changes: ChangeBus,
  ) {}

  /**
   * One change of a proxy's overrides or active state: applied under a row lock, recorded as a
   * revision with the added and removed effective grants, and in recent changes, in one transaction;
   * the in-memory state is updated before this returns.
   */
  async revise(id: string, change: Revise): Promise<{ context: ProxyContext; revision: RevisionRow }> {
    const result = await this.txHost.withTransaction(() => this.reviseInTransaction(id, change));
    await this.changes.publish('proxies', id);
    return result;
  }

  /**
   * `revise` in the caller's transaction, which publishes the change once it has committed.
   * `effectiveBefore`: the effective allowlist before a write that also changed the proxy's template
   * in the same transaction (a declarative import), for the revision's summary.
   */
  async reviseInTransaction(
    id: string,
    change: Revise,
    effectiveBefore?: AllowlistMap,
  ): Promise<{ context: ProxyContext; revision: RevisionRow }> {
    return this.txHost.withTransaction(async () => {
      const context = await this.store.context(id, true);
      const { proxy, template } = context;
      const before = effectiveBefore ?? effectiveAllowlist(template, proxy.overrides);
      const activeBefore = proxy.active;
      const applied = await change.apply(context);
      await this.store.repository.save(proxy);
      const summary = summarize(
        change.kind,
        {
          effectiveBefore: before,
          effectiveAfter: effectiveAllowlist(template, proxy.overrides),
          activeBefore,
          activeAfter: proxy.active,
        },
        change.title,
      );
      const revision = await this.revisions.record({
        proxyId: id,
        kind: change.kind,
        overrides: proxy.overrides,
        active: proxy.active,
        author: change.actor,
        summary,
        restoredFrom: applied?.restoredFrom ?? null,
      });
      await change.alongside?.();
      await this.store.record(change.actor, change.action, context, describeSummary(summary));
      return { context, revision };
    });
  }

  /**
   * The first revision of a new proxy (in the creating transaction): what it started with, so that it
   * can be restored later; and its creation in recent changes (`title` heads both).
   */
  async recordCreated(
    context: ProxyContext,
    actor: string,
    kind: RevisionKind = 'created',
    title = 'Proxy created',
  ): Promise<void> {
    const { proxy, template } = context;
    const summary = summarize(
      kind,
      {
        effectiveBefore: {},
        effectiveAfter: effectiveAllowlist(template, proxy.overrides),
        activeBefore: proxy.active,
        activeAfter: proxy.active,
      },
      title,
    );
    await this.revisions.record({
      proxyId: proxy.id,
      kind,
      overrides: proxy.overrides,
      active: proxy.active,
      author: actor,
      summary,
    });
    await this.store.record(actor, 'proxy.created', context, summary.text);
  }

  async list(id: string, query: PageQueryDto): Promise<Page<RevisionDto>> {
    await this.store.find(id);
    return this.revisions.list(id, query);
  }

  /** A revision against the current configuration: what restoring it would change. */
  async diff(id: string, revisionId: string): Promise<RevisionDiffResponse> {
    const context = await this.store.context(id);
    const revision = await this.revisions.find(id, revisionId);
    return {
      revision: toRevisionDto(revision),
      ...restoreDiff(context.template, context.proxy, revision.overrides),
    };
  }

  /**
   * Sets the overrides and active state of a revision over the current template (a `restore`
   * revision). Keys, templates and other proxies are never touched.
   */
  async restore(id: string, revisionId: string, actor: string): Promise<RevisionDto> {
    const { revision } = await this.revise(id, {
      kind: 'restore',
      actor,
      action: 'proxy.revision-restored',
      apply: async ({ proxy }) => {
        const source = await this.revisions.find(id, revisionId);
        proxy.overrides = source.overrides;
        proxy.active = source.active;
        return { restoredFrom: source.id };
      },
    });
    return toRevisionDto(revision);
  }

  /**
   * Takes back exactly the grants revision `revisionId` added (its `summary.added`) and gives back
   * those it revoked (`summary.removed`: a Fit's "Revoke unused"), as an `undo` revision, leaving every
   * later change alone. 400 when it changed no grant (or is a template sync or an undo); 409, and
   * nothing written, when any of them changed since: an added one no longer granted, a revoked one
   * granted again, or its path's override is not what that revision left (a later revision rewrote it).
   */
  async undo(id: string, revisionId: string, actor: string): Promise<RevisionDto> {
    const { revision } = await this.revise(id, {
      kind: 'undo',
      actor,
      action: 'proxy.revision-undone',
      apply: async ({ proxy, template }) => {
        const source = await this.revisions.find(id, revisionId);
        if (source.kind === 'template-sync' || source.kind === 'undo')
          throw new BadRequestException(
            `A ${source.kind} revision cannot be undone: restore an earlier revision, or edit the allowlist`,
          );
        const { added, removed } = source.summary;
        if (added.length === 0 && removed.length === 0)
          throw new BadRequestException('This revision added no grant and revoked none: there is nothing to undo');
        const effective = effectiveAllowlist(template, proxy.overrides);
        for (const grant of added) {
          if (!(effective[grant.path] ?? []).includes(grant.method))
            throw new ConflictException(
              `${describeGrant(grant)} is no longer granted: it changed since this revision, which cannot be undone`,
            );
          if (!sameMethods(proxy.overrides[grant.path], source.overrides[grant.path]))
            throw new ConflictException(
              `${describeGrant(grant)}: a later revision changed ${grant.path}, so this revision cannot be undone`,
            );
        }
        for (const grant of removed) {
          if ((effective[grant.path] ?? []).includes(grant.method))
            throw new ConflictException(
              `${describeGrant(grant)} is granted again: it changed since this revision, which cannot be undone`,
            );
          if (!sameMethods(proxy.overrides[grant.path], source.overrides[grant.path]))
            throw new ConflictException(
              `${describeGrant(grant)}: a later revision changed ${grant.path}, so this revision cannot be undone`,
            );
        }
        proxy.overrides = overridesWithChanges(template, proxy.overrides, removed, added);
      },
    });
    return toRevisionDto(revision);
  }
}

function describeGrant(grant: Grant): string {
  return `${grant.method.toUpperCase()} ${grant.path}`;
}

/** Whether two overrides of one path grant the same methods (both absent counts as the same). */
function sameMethods(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');
}
