import type { Clock } from '@arrbiter/server/config';
import type { AttemptOutcome } from './webhook-sender';

/** Retries, back-off, rate cap and queue bound of deliveries. */
export interface DeliveryPolicy {
  /** Attempts per message, the first included. */
  maxAttempts: number;
  /** Wait before the second attempt; each later wait is `backoffFactor` times the one before. */
  firstRetryMs: number;
  backoffFactor: number;
  /** The longest wait between two attempts (a receiver's `Retry-After` too). */
  maxRetryMs: number;
  /** Rate cap per webhook: a bucket of `burst` messages, one more every `refillMs`. */
  burst: number;
  refillMs: number;
  /** Messages waiting per webhook at most; more are dropped. */
  maxPending: number;
}

/**
 * 6 attempts, waiting 2 s, 8 s, 32 s, 2 min 8 s and 8 min 32 s between them (about 11 minutes in
 * all); at most 10 messages at once, then one every 5 s (12 a minute), per webhook; 100 waiting.
 */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  maxAttempts: 6,
  firstRetryMs: 2_000,
  backoffFactor: 4,
  maxRetryMs: 15 * 60_000,
  burst: 10,
  refillMs: 5_000,
  maxPending: 100,
};

/** The wait before attempt `attempt + 1`, after `attempt` failed ones (1-based). */
export function backoffMs(policy: DeliveryPolicy, attempt: number, retryAfterMs?: number): number {
  const backoff = Math.min(policy.firstRetryMs * policy.backoffFactor ** (attempt - 1), policy.maxRetryMs);
  return retryAfterMs === undefined ? backoff : Math.min(Math.max(backoff, retryAfterMs), policy.maxRetryMs);
}

/** A message waiting for a webhook. */
interface Delivery<T> {
  item: T;
  /** Attempts made so far. */
  attempts: number;
  /** When it may be tried (ms since the epoch). */
  dueAt: number;
}

interface Lane<T> {
  waiting: Delivery<T>[];
  tokens: number;
  refilledAt: number;
  busy: boolean;
}

/** How an attempt ended, for the record: sent, to be retried, given up. */
export type AttemptResult = 'delivered' | 'retrying' | 'failed';

/** What the queue needs done: one attempt, and its record. */
export interface DeliveryHandlers<T> {
  /** One attempt to send `item` to the webhook; `null` when there is nothing to send any more (deleted, disabled). */
  attempt(webhookId: string, item: T): Promise<AttemptOutcome | null>;
  /** The attempt's result, to be stored. Never throws. */
  record(webhookId: string, item: T, at: Date, result: AttemptResult, outcome: AttemptOutcome): void;
}

/**
 * Deliveries per webhook, in memory: one attempt at a time per webhook (the oldest message that is
 * due), a token bucket per webhook for the rate cap, retries with exponential back-off up to
 * `maxAttempts`, and at most `maxPending` messages waiting. Driven by the injected clock: `pump()`
 * makes every attempt that is due now, `nextWakeAt()` says when the next one will be.
 */
export class DeliveryQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();

  constructor(
    private readonly clock: Clock,
    private readonly handlers: DeliveryHandlers<T>,
    readonly policy: DeliveryPolicy = DEFAULT_DELIVERY_POLICY,
  ) {}

  /** Queues a message for a webhook; false (and nothing queued) when too many are waiting already. */
  enqueue(webhookId: string, item: T): boolean {
    const lane = this.lane(webhookId);
    if (lane.waiting.length >= this.policy.maxPending) return false;
    lane.waiting.push({ item, attempts: 0, dueAt: this.clock.now() });
    return true;
  }

  /** Drops what waits for a webhook (deleted or disabled). An attempt under way finishes, never retried. */
  forget(webhookId: string): void {
    const lane = this.lanes.get(webhookId);
    if (!lane) return;
    lane.waiting = [];
    this.lanes.delete(webhookId);
  }

  /** Messages waiting, per webhook (attempts under way included). */
  pending(webhookId: string): number {
    return this.lanes.get(webhookId)?.waiting.length ?? 0;
  }

  /** Makes every attempt due now, then those that became due through them; resolves when all are done. */
  async pump(): Promise<void> {
    for (;;) {
      const started = [...this.lanes.entries()].flatMap(([id, lane]) => {
        const delivery = this.take(lane);
        return delivery ? [this.run(id, lane, delivery)] : [];
      });
      if (started.length === 0) return;
      await Promise.all(started);
    }
  }

  /** When the next attempt is due (ms since the epoch), or null when nothing waits. */
  nextWakeAt(): number | null {
    let next: number | null = null;
    for (const lane of this.lanes.values()) {
      if (lane.busy || lane.waiting.length === 0) continue;
      const due = Math.min(...lane.waiting.map((d) => d.dueAt));
      const at = Math.max(due, this.tokenAt(lane));
      next = next === null ? at : Math.min(next, at);
    }
    return next;
  }

  private lane(webhookId: string): Lane<T> {
    let lane = this.lanes.get(webhookId);
    if (!lane) {
      lane = { waiting: [], tokens: this.policy.burst, refilledAt: this.clock.now(), busy: false };
      this.lanes.set(webhookId, lane);
    }
    return lane;
  }

  private refill(lane: Lane<T>): void {
    const now = this.clock.now();
    const earned = Math.floor((now - lane.refilledAt) / this.policy.refillMs);
    if (earned <= 0) return;
    lane.tokens = Math.min(this.policy.burst, lane.tokens + earned);
    lane.refilledAt = lane.tokens === this.policy.burst ? now : lane.refilledAt + earned * this.policy.refillMs;
  }

  /** When the lane has a token again. */
  private tokenAt(lane: Lane<T>): number {
    this.refill(lane);
    return lane.tokens >= 1 ? this.clock.now() : lane.refilledAt + this.policy.refillMs;
  }

  /** The oldest waiting message that is due, if the lane is free and has a token (which it spends). */
  private take(lane: Lane<T>): Delivery<T> | undefined {
    if (lane.busy) return undefined;
    const now = this.clock.now();
    const index = lane.waiting.findIndex((d) => d.dueAt <= now);
    if (index < 0) return undefined;
    this.refill(lane);
    if (lane.tokens < 1) return undefined;
    lane.tokens -= 1;
    lane.busy = true;
    return lane.waiting.splice(index, 1)[0];
  }

  private async run(webhookId: string, lane: Lane<T>, delivery: Delivery<T>): Promise<void> {
    const at = this.clock.date();
    delivery.attempts += 1;
    let outcome: AttemptOutcome | null;
    try {
      outcome = await this.handlers.attempt(webhookId, delivery.item);
    } catch (error) {
      outcome = { ok: false, retryable: true, error: (error as Error).message.slice(0, 200) };
    }
    lane.busy = false;
    if (outcome !== null) {
      const retry = !outcome.ok && outcome.retryable && delivery.attempts < this.policy.maxAttempts;
      this.handlers.record(
        webhookId,
        delivery.item,
        at,
        outcome.ok ? 'delivered' : retry ? 'retrying' : 'failed',
        outcome,
      );
      if (retry && this.lanes.get(webhookId) === lane) {
        delivery.dueAt = this.clock.now() + backoffMs(this.policy, delivery.attempts, outcome.retryAfterMs);
        lane.waiting.push(delivery);
      }
    }
    if (lane.waiting.length === 0 && this.lanes.get(webhookId) === lane && lane.tokens >= this.policy.burst)
      this.lanes.delete(webhookId);
  }
}
