import { ManualClock } from '@arrbiter/server/config';
import { AttemptResult, backoffMs, DEFAULT_DELIVERY_POLICY, DeliveryPolicy, DeliveryQueue } from './delivery-queue';
import type { AttemptOutcome } from './webhook-sender';

const SECOND = 1000;
const OK: AttemptOutcome = { ok: true, httpStatus: 200, retryable: false };
const DOWN: AttemptOutcome = { ok: false, httpStatus: 500, retryable: true, error: 'HTTP 500' };
const GONE: AttemptOutcome = { ok: false, httpStatus: 404, retryable: false, error: 'HTTP 404' };

/** A receiver whose answers the test scripts, and what the queue stored. */
class Harness {
  readonly clock = new ManualClock();
  /** Attempts in the order they were made: webhook, item, clock time since the start (ms). */
  readonly attempts: { webhook: string; item: string; at: number }[] = [];
  readonly records: { webhook: string; item: string; result: AttemptResult; at: number }[] = [];
  /** Answers by webhook, used in turn; the last one repeats. */
  readonly answers = new Map<string, (AttemptOutcome | null)[]>();
  readonly started = this.clock.now();
  readonly queue: DeliveryQueue<string>;

  constructor(policy: DeliveryPolicy = DEFAULT_DELIVERY_POLICY) {
    this.queue = new DeliveryQueue<string>(
      this.clock,
      {
        attempt: async (webhook, item) => {
          this.attempts.push({ webhook, item, at: this.clock.now() - this.started });
          const answers = this.answers.get(webhook) ?? [OK];
          return answers.length > 1 ? (answers.shift() ?? OK) : answers[0];
        },
        record: (webhook, item, at, result) =>
          this.records.push({ webhook, item, result, at: at.getTime() - this.started }),
      },
      policy,
    );
  }

  /** Moves the clock, then makes what is due. */
  async after(ms: number): Promise<void> {
    this.clock.advance(ms);
    await this.queue.pump();
  }

  /** Moves the clock from one due attempt to the next until nothing waits (or `until`, from the start). */
  async idle(until = Number.POSITIVE_INFINITY): Promise<void> {
    for (let next = this.queue.nextWakeAt(); next !== null && next - this.started <= until; ) {
      await this.after(Math.max(0, next - this.clock.now()));
      next = this.queue.nextWakeAt();
    }
  }

  /** When the next attempt is due, from the start (ms). */
  nextAt(): number | null {
    const next = this.queue.nextWakeAt();
    return next === null ? null : next - this.started;
  }
}

describe(DeliveryQueue.name, () => {
  it('sends what is queued at once and records it delivered', async () => {
    const h = new Harness();
    expect(h.queue.enqueue('a', 'first')).toBe(true);
    await h.queue.pump();
    expect(h.attempts).toEqual([{ webhook: 'a', item: 'first', at: 0 }]);
    expect(h.records).toEqual([{ webhook: 'a', item: 'first', result: 'delivered', at: 0 }]);
    expect(h.queue.nextWakeAt()).toBeNull();
  });

  it('retries a failure with exponential back-off, then records the success', async () => {
    const h = new Harness();
    h.answers.set('a', [DOWN, DOWN, OK]);
    h.queue.enqueue('a', 'message');
    await h.queue.pump();
    expect(h.nextAt()).toBe(2 * SECOND);
    // Not due a millisecond early.
    await h.after(2 * SECOND - 1);
    expect(h.attempts).toHaveLength(1);
    await h.after(1);
    expect(h.nextAt()).toBe(2 * SECOND + 8 * SECOND);
    await h.after(8 * SECOND);
    expect(h.attempts.map((a) => a.at)).toEqual([0, 2 * SECOND, 10 * SECOND]);
    expect(h.records.map((r) => r.result)).toEqual(['retrying', 'retrying', 'delivered']);
    expect(h.queue.nextWakeAt()).toBeNull();
  });

  it('gives up after the last attempt, and at once on an answer a retry would not change', async () => {
    const h = new Harness();
    h.answers.set('down', [DOWN]);
    h.answers.set('gone', [GONE]);
    h.queue.enqueue('down', 'm');
    h.queue.enqueue('gone', 'm');
    await h.queue.pump();
    await h.idle();
    const down = h.records.filter((r) => r.webhook === 'down');
    expect(down.map((r) => r.result)).toEqual(['retrying', 'retrying', 'retrying', 'retrying', 'retrying', 'failed']);
    // 2 s, 8 s, 32 s, 128 s, 512 s apart.
    const times = down.map((r) => r.at);
    expect(times.slice(1).map((t, i) => t - times[i])).toEqual([2, 8, 32, 128, 512].map((s) => s * SECOND));
    expect(h.records.filter((r) => r.webhook === 'gone').map((r) => r.result)).toEqual(['failed']);
    expect(h.queue.nextWakeAt()).toBeNull();
  });

  it('waits at least as long as the receiver’s Retry-After, within the longest wait', () => {
    expect(backoffMs(DEFAULT_DELIVERY_POLICY, 1)).toBe(2 * SECOND);
    expect(backoffMs(DEFAULT_DELIVERY_POLICY, 1, 60 * SECOND)).toBe(60 * SECOND);
    expect(backoffMs(DEFAULT_DELIVERY_POLICY, 3, 1)).toBe(32 * SECOND);
    expect(backoffMs(DEFAULT_DELIVERY_POLICY, 1, 24 * 3600 * SECOND)).toBe(15 * 60 * SECOND);
    expect(backoffMs(DEFAULT_DELIVERY_POLICY, 9)).toBe(15 * 60 * SECOND);
  });

  it('caps the rate per webhook: a burst, then one message per refill interval', async () => {
    const h = new Harness();
    for (let i = 0; i < 14; i += 1) h.queue.enqueue('a', `m${i}`);
    h.queue.enqueue('b', 'other');
    await h.queue.pump();
    // Ten at once for a; b has its own bucket.
    expect(h.attempts.filter((a) => a.webhook === 'a')).toHaveLength(10);
    expect(h.attempts.filter((a) => a.webhook === 'b')).toHaveLength(1);
    expect(h.nextAt()).toBe(5 * SECOND);
    await h.after(4999);
    expect(h.attempts.filter((a) => a.webhook === 'a')).toHaveLength(10);
    await h.after(1);
    expect(h.attempts.filter((a) => a.webhook === 'a')).toHaveLength(11);
    await h.idle();
    const a = h.attempts.filter((x) => x.webhook === 'a');
    expect(a.map((x) => x.item)).toEqual(Array.from({ length: 14 }, (_, i) => `m${i}`));
    expect(a.slice(10).map((x) => x.at)).toEqual([5, 10, 15, 20].map((s) => s * SECOND));
  });

  it('spends tokens on retries too, and refills the bucket to its burst when idle', async () => {
    const h = new Harness({ ...DEFAULT_DELIVERY_POLICY, burst: 2, refillMs: 10 * SECOND });
    h.answers.set('a', [DOWN, OK]);
    h.queue.enqueue('a', 'm1');
    h.queue.enqueue('a', 'm2');
    h.queue.enqueue('a', 'm3');
    await h.queue.pump();
    expect(h.attempts.map((a) => a.item)).toEqual(['m1', 'm2']);
    // m1 is due again after 2 s, but the bucket is empty until 10 s: m3 (older in the queue) first.
    await h.after(2 * SECOND);
    expect(h.attempts).toHaveLength(2);
    await h.after(8 * SECOND);
    await h.after(10 * SECOND);
    expect(h.attempts.map((a) => `${a.item}@${a.at / SECOND}`)).toEqual(['m1@0', 'm2@0', 'm3@10', 'm1@20']);
    await h.after(60 * SECOND);
    h.queue.enqueue('a', 'm4');
    h.queue.enqueue('a', 'm5');
    await h.queue.pump();
    expect(h.attempts.slice(4).map((a) => a.at / SECOND)).toEqual([80, 80]);
  });

  it('keeps at most maxPending messages waiting per webhook', () => {
    const h = new Harness({ ...DEFAULT_DELIVERY_POLICY, maxPending: 3 });
    expect([1, 2, 3, 4].map((i) => h.queue.enqueue('a', `m${i}`))).toEqual([true, true, true, false]);
    expect(h.queue.enqueue('b', 'm')).toBe(true);
    expect(h.queue.pending('a')).toBe(3);
  });

  it('sends one message at a time per webhook, and nothing more once a webhook is forgotten', async () => {
    const h = new Harness();
    let release: (outcome: AttemptOutcome) => void = () => undefined;
    const queue = new DeliveryQueue<string>(h.clock, {
      attempt: (_webhook, item) => {
        h.attempts.push({ webhook: 'a', item, at: 0 });
        return new Promise((resolve) => (release = resolve));
      },
      record: (webhook, item, _at, result) => h.records.push({ webhook, item, result, at: 0 }),
    });
    queue.enqueue('a', 'm1');
    queue.enqueue('a', 'm2');
    const pumping = queue.pump();
    await Promise.resolve();
    expect(h.attempts.map((a) => a.item)).toEqual(['m1']);
    queue.forget('a');
    release(DOWN);
    await pumping;
    // Recorded as it ended, never retried; m2 was dropped with the webhook.
    expect(h.records.map((r) => `${r.item}:${r.result}`)).toEqual(['m1:retrying']);
    expect(queue.nextWakeAt()).toBeNull();
    expect(h.attempts).toHaveLength(1);
  });

  it('records nothing for a message that has nothing to send any more (webhook deleted or disabled)', async () => {
    const h = new Harness();
    h.answers.set('a', [null]);
    h.queue.enqueue('a', 'm');
    await h.queue.pump();
    expect(h.attempts).toHaveLength(1);
    expect(h.records).toEqual([]);
    expect(h.queue.nextWakeAt()).toBeNull();
  });
});
