import { HOUR_MS } from './usage-counter';
import {
  MAX_UNAUTHORIZED_ENTRIES,
  MAX_USER_AGENT_LENGTH,
  UnauthorizedCount,
  UnauthorizedCounter,
} from './unauthorized-counter';

const A1 = '00000000-0000-4000-8000-000000000001';
const A2 = '00000000-0000-4000-8000-000000000002';
/** 2026-11-24T10:00:00Z. */
const TEN = Date.UTC(2026, 10, 24, 10);

class FakeClock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
}

function byKey(taken: UnauthorizedCount[]): Record<string, Omit<UnauthorizedCount, 'hour' | 'appId'>> {
  return Object.fromEntries(
    taken.map(({ hour, appId, ...rest }) => [`${new Date(hour).toISOString()} ${appId ?? 'unknown'}`, rest]),
  );
}

describe('UnauthorizedCounter', () => {
  it('counts per app and hour, with the last call’s time, address and User-Agent', () => {
    const clock = new FakeClock(TEN + 5_000);
    const counter = new UnauthorizedCounter(clock);
    expect(counter.empty).toBe(true);
    counter.count(A1, '10.0.0.4', 'Overseerr/1.32');
    clock.time += 1_000;
    counter.count(A1, '10.0.0.5', 'Overseerr/1.33');
    counter.count(null, undefined, undefined);
    clock.time = TEN + HOUR_MS + 1;
    counter.count(A1, '10.0.0.6', ['Prowlarr/1.0', 'second']);
    expect(counter.empty).toBe(false);
    expect(byKey(counter.take())).toEqual({
      '2026-11-24T10:00:00.000Z 00000000-0000-4000-8000-000000000001': {
        count: 2,
        lastSeen: TEN + 6_000,
        lastAddress: '10.0.0.5',
        lastUserAgent: 'Overseerr/1.33',
      },
      '2026-11-24T10:00:00.000Z unknown': { count: 1, lastSeen: TEN + 6_000, lastAddress: null, lastUserAgent: null },
      '2026-11-24T11:00:00.000Z 00000000-0000-4000-8000-000000000001': {
        count: 1,
        lastSeen: TEN + HOUR_MS + 1,
        lastAddress: '10.0.0.6',
        lastUserAgent: 'Prowlarr/1.0',
      },
    });
    expect(counter.empty).toBe(true);
    expect(counter.take()).toEqual([]);
  });

  it('cuts the User-Agent to 200 characters', () => {
    const counter = new UnauthorizedCounter(new FakeClock(TEN));
    counter.count(A1, '10.0.0.5', 'x'.repeat(5_000));
    const [entry] = counter.take();
    expect(entry.lastUserAgent).toHaveLength(MAX_USER_AGENT_LENGTH);
  });

  it('is bounded: past the bound, new apps count in the hour’s unknown-app row', () => {
    const counter = new UnauthorizedCounter(new FakeClock(TEN));
    const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    for (let i = 0; i < MAX_UNAUTHORIZED_ENTRIES + 500; i += 1) counter.count(id(i), '10.0.0.5', 'ua');
    // Apps already counted go on counting in their own row.
    counter.count(id(0), '10.0.0.5', 'ua');
    const taken = counter.take();
    expect(taken.length).toBe(MAX_UNAUTHORIZED_ENTRIES + 1);
    expect(taken.find((e) => e.appId === null)?.count).toBe(500);
    expect(taken.find((e) => e.appId === id(0))?.count).toBe(2);
    expect(taken.reduce((sum, e) => sum + e.count, 0)).toBe(MAX_UNAUTHORIZED_ENTRIES + 501);
    expect(counter.folded).toBe(500);
  });

  it('puts back what a failed write took, added to what was counted since', () => {
    const clock = new FakeClock(TEN);
    const counter = new UnauthorizedCounter(clock);
    counter.count(A1, '10.0.0.4', 'old');
    counter.count(A2, '10.0.0.9', 'two');
    const taken = counter.take();
    clock.time += 1_000;
    counter.count(A1, '10.0.0.5', 'new');
    counter.restore(taken);
    expect(byKey(counter.take())).toEqual({
      '2026-11-24T10:00:00.000Z 00000000-0000-4000-8000-000000000001': {
        count: 2,
        lastSeen: TEN + 1_000,
        lastAddress: '10.0.0.5',
        lastUserAgent: 'new',
      },
      '2026-11-24T10:00:00.000Z 00000000-0000-4000-8000-000000000002': {
        count: 1,
        lastSeen: TEN,
        lastAddress: '10.0.0.9',
        lastUserAgent: 'two',
      },
    });
  });
});
