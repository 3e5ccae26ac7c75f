import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, Injectable } from '@nestjs/common';
import type { ProxyDto } from '@arrbiter/contracts';
import { Clock } from '@arrbiter/server/config';
import { ChangeBus } from '@arrbiter/server/database';
import { SYSTEM_ACTOR } from '@arrbiter/server/history';
import { Notifier, ProxySubject } from '@arrbiter/server/notifications';
import { learningDeadlineProblem } from '@arrbiter/server/permissions';
import { In } from 'typeorm';
import { toProxyDto } from './proxies.service';
import { ProxyContext, ProxyStore, proxySubject } from './proxy-store';

/**
 * Learning mode: until its deadline a proxy forwards what its allowlist refuses (under `/api` and
 * `/feed`, never a sensitive endpoint) and records it as a `learned` warning. Starting, stopping and
 * ending it are recent changes, not revisions: the allowlist does not change.
 */
@Injectable()
export class ProxyLearningService {
  constructor(
    private readonly store: ProxyStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly changes: ChangeBus,
    private readonly notifier: Notifier,
  ) {}

  /** Puts a proxy in learning mode until `until` (in the future, at most 7 days ahead). */
  async start(id: string, until: Date, actor: string): Promise<ProxyDto> {
    const problem = learningDeadlineProblem(until, this.clock.now());
    if (problem) throw new BadRequestException([problem]);
    return this.write(id, async (context) => {
      context.proxy.learningUntil = until;
      await this.store.repository.save(context.proxy);
      await this.store.record(
        actor,
        'proxy.learning-started',
        context,
        `Learning mode until ${until.toISOString()}: refused requests are forwarded and recorded as learned warnings`,
      );
    });
  }

  /** Ends learning mode now (`learning.ended` when it was on). */
  async stop(id: string, actor: string): Promise<ProxyDto> {
    let stopped: ProxySubject | undefined;
    const proxy = await this.write(id, async (context) => {
      if (context.proxy.learningUntil === null) return;
      context.proxy.learningUntil = null;
      await this.store.repository.save(context.proxy);
      await this.store.record(actor, 'proxy.learning-stopped', context, 'Learning mode stopped');
      stopped = proxySubject(context);
    });
    if (stopped) this.notifier.raise({ type: 'learning.ended', proxy: stopped, reason: 'stopped', actor });
    return proxy;
  }

  /** The earliest learning deadline of any proxy, or null when none is learning. */
  async nextDeadline(): Promise<Date | null> {
    const row = await this.store.repository
      .createQueryBuilder('p')
      .select('min(p.learning_until)', 'next')
      .getRawOne<{ next: Date | string | null }>();
    return row?.next ? new Date(row.next) : null;
  }

  /**
   * Ends learning mode on every proxy whose deadline has passed; each end is a recent change. One
   * conditional `UPDATE … RETURNING` ends them: of replicas doing this at once, only the one whose
   * statement changed a row records its end (the others' statements wait for its row lock, then
   * match nothing), and raises `learning.ended` for each.
   */
  async endExpired(): Promise<string[]> {
    const subjects: ProxySubject[] = [];
    const ended = await this.txHost.withTransaction(async () => {
      const [rows] = (await this.store.repository.query(
        `UPDATE "proxy" AS p SET "learning_until" = NULL, "updated_at" = now() FROM "proxy" AS before
         WHERE before."id" = p."id" AND p."learning_until" <= $1 RETURNING p."id", before."learning_until" AS "deadline"`,
        [this.clock.date()],
      )) as [{ id: string; deadline: Date | string }[], number];
      if (rows.length === 0) return [];
      const proxies = await this.store.repository.findBy({ id: In(rows.map((row) => row.id)) });
      for (const { id, deadline } of rows) {
        const proxy = proxies.find((candidate) => candidate.id === id);
        if (!proxy) continue;
        const context = { proxy, ...(await this.store.around(proxy)) };
        await this.store.record(
          SYSTEM_ACTOR,
          'proxy.learning-ended',
          context,
          `Learning mode ended at its deadline (${new Date(deadline).toISOString()})`,
        );
        subjects.push(proxySubject(context));
      }
      return rows.map((row) => row.id);
    });
    for (const id of ended) await this.changes.publish('proxies', id);
    for (const proxy of subjects)
      this.notifier.raise({ type: 'learning.ended', proxy, reason: 'deadline', actor: SYSTEM_ACTOR });
    return ended;
  }

  /** A learning-mode write under the proxy's row lock; the in-memory state is updated before this returns. */
  private async write(id: string, change: (context: ProxyContext) => Promise<void>): Promise<ProxyDto> {
    const proxy = await this.txHost.withTransaction(async () => {
      const context = await this.store.context(id, true);
      await change(context);
      return context.proxy;
    });
    await this.changes.publish('proxies', id);
    return toProxyDto(proxy, this.clock.now());
  }
}
