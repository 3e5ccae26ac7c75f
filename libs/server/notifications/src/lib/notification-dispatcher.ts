import { Injectable, Logger, NotFoundException, OnApplicationBootstrap } from '@nestjs/common';
import type { NotificationAttemptDto, NotificationEventType } from '@arrbiter/contracts';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { DatabaseLifecycle } from '@arrbiter/server/database';
import { Coalescer } from './coalescer';
import { AttemptResult, DeliveryQueue } from './delivery-queue';
import { describeNotice, Notice, renderMessage } from './messages';
import type { NotificationEvent } from './notification-event';
import { Notifier } from './notifier';
import { AttemptOutcome, sendWebhook } from './webhook-sender';
import { toAttemptDto, WebhooksService } from './webhooks.service';

const HOUR = 3_600_000;
/** Events raised and not yet handed to the queue, at most (a stalled database must not grow memory). */
const MAX_INTAKE = 10_000;
/** How long an attempt under way may go on once the server is stopping. */
const STOP_GRACE_MS = 2_000;
/** How often old attempts are deleted. */
const PRUNE_INTERVAL_MS = HOUR;

/** An event as it waits for delivery: when it happened, and how many like it were left out before it. */
export interface Raised {
  notice: Notice;
  at: Date;
  suppressed: number;
}

/**
 * The events that are coalesced, and over how long: a flood of refusals is one message per route
 * (and method) per proxy per hour; a failing scheduled template sync one message an hour.
 */
export function coalescing(event: NotificationEvent): { key: string; windowMs: number } | null {
  switch (event.type) {
    case 'warning.new':
      return { key: `warning.new|${event.proxy.id}|${event.method}|${event.routeKey}`, windowMs: HOUR };
    case 'template-sync.failed':
      return { key: 'template-sync.failed', windowMs: HOUR };
    case 'learning.ended':
    case 'template-sync.changed':
    case 'service.unreachable':
    case 'service.recovered':
    case 'key.rotated':
      return null;
  }
}

/**
 * Delivers events to the webhooks that asked for them, off the request path: `raise` coalesces and
 * hands the event over at once; a batch step reads the enabled webhooks (one query) and queues a
 * message per webhook; `DeliveryQueue` sends them (rate cap, retries with back-off) and each attempt
 * is stored. Everything waiting is in memory: it is lost when the process stops (an attempt under
 * way gets 2 s to finish).
 */
@Injectable()
export class NotificationDispatcher extends Notifier implements OnApplicationBootstrap {
  private readonly logger = new Logger('Notifications');
  private readonly coalescer: Coalescer;
  readonly queue: DeliveryQueue<Raised>;
  private intake: Raised[] = [];
  private lostSinceLog = 0;
  private draining?: Promise<void>;
  private readonly work = new Set<Promise<unknown>>();
  private timer?: NodeJS.Timeout;
  private timerAt?: number;
  private pruneTimer?: NodeJS.Timeout;
  private stopped = false;
  private readonly stopping = new AbortController();

  constructor(
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    lifecycle: DatabaseLifecycle,
  ) {
    super();
    this.coalescer = new Coalescer(clock);
    this.queue = new DeliveryQueue<Raised>(clock, {
      attempt: (webhookId, raised) => this.attempt(webhookId, raised),
      record: (webhookId, raised, at, result, outcome) =>
        this.record(webhookId, raised.notice.type, at, result, outcome),
    });
    // Attempts are stored until the database closes: stop taking events, let what is under way end.
    lifecycle.beforeClose(() => this.stop());
  }

  onApplicationBootstrap(): void {
    this.pruneTimer = setInterval(() => void this.track(this.prune()), PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  raise(event: NotificationEvent): void {
    if (this.stopped) return;
    try {
      const rule = coalescing(event);
      const admitted = rule ? this.coalescer.admit(rule.key, rule.windowMs) : { send: true, suppressed: 0 };
      if (!admitted.send) return;
      if (this.intake.length >= MAX_INTAKE) {
        this.lostSinceLog += 1;
        return;
      }
      this.intake.push({ notice: event, at: this.clock.date(), suppressed: admitted.suppressed });
      void this.drainSoon();
    } catch (error) {
      this.logger.warn(`Could not take the ${event.type} notification: ${(error as Error).message}`);
    }
  }

  /**
   * Where links in messages point: `PUBLIC_URL` (no request to take an address from here), else
   * `http://localhost:PORT` as before it could be unset; the start-up notice says to set it.
   */
  private get linkBase(): string {
    return this.config.publicUrl ?? `http://localhost:${this.config.port}`;
  }

  /** Sends a test message to a webhook now (disabled or not) and answers the attempt's result. */
  async test(id: string): Promise<NotificationAttemptDto> {
    const target = await this.webhooks.forDelivery(id);
    if (!target) throw new NotFoundException('No such webhook');
    const at = this.clock.date();
    const message = describeNotice({ type: 'test' }, at, 0, this.linkBase);
    const outcome = await sendWebhook(target.url, renderMessage(target.format, message), {
      signal: this.stopping.signal,
    });
    const attempt = {
      event: 'test' as const,
      at,
      status: outcome.ok ? ('delivered' as const) : ('failed' as const),
      httpStatus: outcome.httpStatus ?? null,
      error: outcome.error ?? null,
    };
    await this.webhooks.recordAttempt(id, attempt);
    return toAttemptDto(attempt);
  }

  /** Hands what was raised to the queue and makes every attempt due now (tests call it instead of waiting). */
  async flush(): Promise<void> {
    await this.drainSoon();
    await this.pump();
  }

  private drainSoon(): Promise<void> {
    this.draining ??= this.track(
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => this.drain())
        .finally(() => {
          this.draining = undefined;
          if (this.intake.length > 0 && !this.stopped) void this.drainSoon();
        }),
    );
    return this.draining;
  }

  private async drain(): Promise<void> {
    const batch = this.intake;
    this.intake = [];
    if (this.lostSinceLog > 0) {
      this.logger.warn(`${this.lostSinceLog} notifications were lost: more than ${MAX_INTAKE} were waiting`);
      this.lostSinceLog = 0;
    }
    if (batch.length === 0 || this.stopped) return;
    let subscribers: { id: string; events: NotificationEventType[] }[];
    try {
      subscribers = await this.webhooks.subscribers();
    } catch (error) {
      this.logger.warn(`Could not read the webhooks, ${batch.length} notifications lost: ${(error as Error).message}`);
      return;
    }
    const dropped = new Map<string, { type: NotificationEventType | 'test'; count: number }>();
    for (const raised of batch) {
      for (const webhook of subscribers) {
        if (raised.notice.type === 'test' || !webhook.events.includes(raised.notice.type)) continue;
        if (this.queue.enqueue(webhook.id, raised)) continue;
        const key = `${webhook.id}|${raised.notice.type}`;
        const known = dropped.get(key);
        if (known) known.count += 1;
        else dropped.set(key, { type: raised.notice.type, count: 1 });
      }
    }
    const at = this.clock.date();
    for (const [key, { type, count }] of dropped) {
      const webhookId = key.slice(0, key.indexOf('|'));
      const error = `${count} message${count === 1 ? '' : 's'} not sent: ${this.queue.policy.maxPending} were already waiting for this webhook (rate cap or retries)`;
      this.logger.warn(`Webhook ${webhookId}: ${error}`);
      this.store(webhookId, { event: type, at, status: 'dropped', error });
    }
    void this.pump();
  }

  private pump(): Promise<void> {
    return this.track(this.queue.pump().finally(() => this.plan()));
  }

  /** Wakes up when the next attempt is due (one timer). */
  private plan(): void {
    if (this.stopped) return;
    const next = this.queue.nextWakeAt();
    if (next === null || (this.timer && this.timerAt !== undefined && this.timerAt <= next)) return;
    clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = undefined;
        void this.pump();
      },
      Math.max(0, next - this.clock.now()),
    );
    this.timer.unref();
  }

  private async attempt(webhookId: string, raised: Raised): Promise<AttemptOutcome | null> {
    if (this.stopped || raised.notice.type === 'test') return null;
    const target = await this.webhooks.forDelivery(webhookId);
    // Deleted, disabled or no longer subscribed since the event was queued: nothing to send.
    if (!target || !target.enabled || !target.events.includes(raised.notice.type)) return null;
    const message = describeNotice(raised.notice, raised.at, raised.suppressed, this.linkBase);
    return sendWebhook(target.url, renderMessage(target.format, message), { signal: this.stopping.signal });
  }

  private record(
    webhookId: string,
    event: NotificationEventType | 'test',
    at: Date,
    result: AttemptResult,
    outcome: AttemptOutcome,
  ): void {
    if (result === 'failed')
      this.logger.warn(
        `Notification ${event} to webhook ${webhookId} failed for good: ${outcome.error ?? 'no answer'}`,
      );
    this.store(webhookId, {
      event,
      at,
      status: result,
      httpStatus: outcome.httpStatus ?? null,
      error: outcome.error ?? null,
    });
  }

  private store(webhookId: string, attempt: Parameters<WebhooksService['recordAttempt']>[1]): void {
    void this.track(
      this.webhooks
        .recordAttempt(webhookId, attempt)
        .catch((error: unknown) =>
          this.logger.warn(`Could not store a delivery attempt of webhook ${webhookId}: ${(error as Error).message}`),
        ),
    );
  }

  private async prune(): Promise<void> {
    try {
      const removed = await this.webhooks.prune(this.clock.date());
      if (removed > 0) this.logger.log(`Deleted ${removed} old notification attempts`);
    } catch (error) {
      this.logger.warn(`Could not delete old notification attempts: ${(error as Error).message}`);
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.finally(() => this.work.delete(promise)).catch(() => undefined);
    return promise;
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pruneTimer);
    const grace = setTimeout(() => this.stopping.abort(), STOP_GRACE_MS);
    try {
      while (this.work.size > 0) await Promise.allSettled([...this.work]);
    } finally {
      clearTimeout(grace);
    }
  }
}
