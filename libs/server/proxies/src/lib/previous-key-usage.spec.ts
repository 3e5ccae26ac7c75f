import { Logger } from '@nestjs/common';
import { TestClock } from '@arrbiter/server/config';
import type { DatabaseLifecycle } from '@arrbiter/server/database';
import type { Repository } from 'typeorm';
import type { ProxyEntity } from './entities/proxy.entity';
import { MAX_PENDING_USES, PreviousKeyUsage } from './previous-key-usage';

const P1 = '00000000-0000-4000-8000-000000000001';
const P2 = '00000000-0000-4000-8000-000000000002';
const OLD = 'a'.repeat(64);
const OLDER = 'b'.repeat(64);

/** The batches the recorder writes: proxy ids, digests, counts and last uses, as the UPDATE receives them. */
class FakeProxies {
  readonly writes: { ids: string[]; digests: string[]; uses: number[]; lastUsed: Date[] }[] = [];
  failNext = false;
  readonly repository = {
    query: async (_sql: string, [ids, digests, uses, lastUsed]: [string[], string[], number[], Date[]]) => {
      if (this.failNext) {
        this.failNext = false;
        throw new Error('connection lost');
      }
      this.writes.push({ ids, digests, uses, lastUsed });
      return [];
    },
  } as unknown as Repository<ProxyEntity>;
  drains: (() => Promise<void>)[] = [];
  readonly lifecycle = {
    beforeClose: (drain: () => Promise<void>) => this.drains.push(drain),
  } as unknown as DatabaseLifecycle;
}

describe(PreviousKeyUsage.name, () => {
  let db: FakeProxies;
  let clock: TestClock;
  let usage: PreviousKeyUsage;

  beforeEach(() => {
    jest.useFakeTimers();
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    db = new FakeProxies();
    clock = new TestClock();
    usage = new PreviousKeyUsage(db.repository, clock, db.lifecycle);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  const wait = (seconds: number) => jest.advanceTimersByTimeAsync(seconds * 1000);

  it('adds up the calls of each proxy in memory and writes them in one batch a second later', async () => {
    usage.record(P1, OLD);
    usage.record(P1, OLD);
    usage.record(P2, OLDER);
    expect(db.writes).toEqual([]);
    await wait(1);
    expect(db.writes).toHaveLength(1);
    const [batch] = db.writes;
    expect([batch.ids, batch.digests, batch.uses]).toEqual([
      [P1, P2],
      [OLD, OLDER],
      [2, 1],
    ]);
    // Nothing more to write: no further batch.
    await wait(5);
    expect(db.writes).toHaveLength(1);
  });

  it('keeps the time of the last call', async () => {
    usage.record(P1, OLD);
    clock.advance(30_000);
    const last = clock.now();
    usage.record(P1, OLD);
    await wait(1);
    expect(db.writes[0].lastUsed).toEqual([new Date(last)]);
  });

  it('starts again when a new rotation replaced the key being counted', async () => {
    usage.record(P1, OLDER);
    usage.record(P1, OLDER);
    usage.record(P1, OLD);
    await wait(1);
    expect([db.writes[0].digests, db.writes[0].uses]).toEqual([[OLD], [1]]);
  });

  it('keeps the counts of a failed write for the next one, merged with newer calls', async () => {
    usage.record(P1, OLD);
    db.failNext = true;
    await wait(1);
    expect(db.writes).toEqual([]);
    usage.record(P1, OLD);
    await wait(1);
    expect(db.writes.map((w) => w.uses)).toEqual([[2]]);
  });

  it('holds a bounded number of proxies, and writes what is pending when the database closes', async () => {
    for (let i = 0; i < MAX_PENDING_USES + 5; i += 1) usage.record(`proxy-${i}`, OLD);
    await Promise.all(db.drains.map((drain) => drain()));
    expect(db.writes.flatMap((w) => w.ids)).toHaveLength(MAX_PENDING_USES);
    // Closed: nothing is scheduled any more.
    usage.record(P1, OLD);
    await wait(5);
    expect(db.writes.flatMap((w) => w.ids)).toHaveLength(MAX_PENDING_USES);
  });
});
