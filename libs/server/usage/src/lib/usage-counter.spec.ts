import { HOUR_MS, HourCount, hourOf, MAX_ROUTE_ENTRIES, UsageCounter } from './usage-counter';

const P1 = '00000000-0000-4000-8000-000000000001';
const P2 = '00000000-0000-4000-8000-000000000002';
/** 2026-11-24T10:00:00Z. */
const TEN = Date.UTC(2026, 10, 24, 10);

class FakeClock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
}

/** What was taken, as plain data: hour → proxy → counts and routes. */
function plain(hours: HourCount[]) {
  return hours.map(({ hour, proxies }) => ({
    hour: new Date(hour).toISOString(),
    proxies: Object.fromEntries(
      [...proxies].map(([id, p]) => [
        id,
        {
          forwarded: p.forwarded,
          refused: p.refused,
          errors: p.errors,
          routes: Object.fromEntries(
            [...p.routes].flatMap(([route, methods]) =>
              [...methods].map(([method, r]) => [`${method} ${route}`, [r.count, new Date(r.lastSeen).toISOString()]]),
            ),
          ),
        },
      ]),
    ),
  }));
}

describe(UsageCounter.name, () => {
  let clock: FakeClock;
  let counter: UsageCounter;

  beforeEach(() => {
    clock = new FakeClock(TEN + 5 * 60_000);
    counter = new UsageCounter(clock);
  });

  it('rounds times down to their hour', () => {
    expect(hourOf(TEN + HOUR_MS - 1)).toBe(TEN);
    expect(hourOf(TEN)).toBe(TEN);
  });

  it('counts forwarded, refused and failed calls per proxy, and each method and route with its last call', () => {
    counter.count(P1, 'GET', '/api/v3/movie/{id}', false, false);
    clock.time += 1000;
    counter.count(P1, 'GET', '/api/v3/movie/{id}', false, true);
    counter.count(P1, 'DELETE', '/api/v3/movie/{id}', true, false);
    counter.count(P1, 'GET', '/api/v3/config/host', true, false);
    // A refusal without a path (a rate limit, a bad path) counts without a route.
    counter.count(P1, 'GET', null, true, false);
    counter.count(P2, 'GET', undefined, false, false);
    expect(counter.empty).toBe(false);
    expect(plain(counter.take())).toEqual([
      {
        hour: '2026-11-24T10:00:00.000Z',
        proxies: {
          [P1]: {
            forwarded: 2,
            refused: 3,
            errors: 1,
            routes: {
              'GET /api/v3/movie/{id}': [2, '2026-11-24T10:05:01.000Z'],
              'DELETE /api/v3/movie/{id}': [1, '2026-11-24T10:05:01.000Z'],
              'GET /api/v3/config/host': [1, '2026-11-24T10:05:01.000Z'],
            },
          },
          [P2]: { forwarded: 1, refused: 0, errors: 0, routes: {} },
        },
      },
    ]);
    // Taken: the counter goes on from zero.
    expect(counter.empty).toBe(true);
    expect(counter.take()).toEqual([]);
  });

  it('counts through the slot a call hands back as without it, and leaves a stale slot alone', () => {
    let slot = counter.count(P1, 'GET', '/api/v3/movie', false, false);
    slot = counter.count(P1, 'GET', '/api/v3/movie', false, false, slot);
    slot = counter.count(P1, 'POST', '/api/v3/movie', false, false, slot);
    slot = counter.count(P1, 'GET', '/api/v3/movie', true, false, slot);
    slot = counter.count(P1, 'GET', null, true, false, slot);
    const first = counter.take();
    // Taken: the slot belongs to what was taken, and its calls now count from zero.
    slot = counter.count(P1, 'GET', '/api/v3/movie', false, false, slot);
    clock.time = TEN + HOUR_MS;
    // A new hour: likewise.
    counter.count(P1, 'GET', '/api/v3/movie', false, false, slot);
    expect(plain(first)[0].proxies[P1]).toEqual({
      forwarded: 3,
      refused: 2,
      errors: 0,
      routes: {
        'GET /api/v3/movie': [3, '2026-11-24T10:05:00.000Z'],
        'POST /api/v3/movie': [1, '2026-11-24T10:05:00.000Z'],
      },
    });
    expect(plain(counter.take()).map((h) => [h.hour, h.proxies[P1].forwarded, h.proxies[P1].routes])).toEqual([
      ['2026-11-24T10:00:00.000Z', 1, { 'GET /api/v3/movie': [1, '2026-11-24T10:05:00.000Z'] }],
      ['2026-11-24T11:00:00.000Z', 1, { 'GET /api/v3/movie': [1, '2026-11-24T11:00:00.000Z'] }],
    ]);
  });

  it('keeps each hour apart when calls go on past the hour', () => {
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    clock.time = TEN + HOUR_MS + 1;
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    counter.count(P1, 'GET', '/api/v3/movie', true, false);
    clock.time = TEN + 3 * HOUR_MS;
    counter.count(P2, 'POST', '/api/v3/command', false, false);
    const taken = plain(counter.take());
    expect(taken.map((h) => [h.hour, Object.keys(h.proxies)])).toEqual([
      ['2026-11-24T10:00:00.000Z', [P1]],
      ['2026-11-24T11:00:00.000Z', [P1]],
      ['2026-11-24T13:00:00.000Z', [P2]],
    ]);
    expect(taken[1].proxies[P1]).toMatchObject({ forwarded: 1, refused: 1 });
  });

  it('puts back what a failed write took, added to what was counted since', () => {
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    clock.time = TEN + HOUR_MS;
    counter.count(P1, 'GET', '/api/v3/movie', false, true);
    const failed = counter.take();
    counter.count(P1, 'GET', '/api/v3/movie', true, false);
    counter.restore(failed);
    const taken = plain(counter.take());
    expect(taken).toHaveLength(2);
    const byHour = Object.fromEntries(taken.map((h) => [h.hour, h.proxies[P1]]));
    expect(byHour['2026-11-24T10:00:00.000Z']).toMatchObject({ forwarded: 1, refused: 0, errors: 0 });
    expect(byHour['2026-11-24T11:00:00.000Z']).toMatchObject({
      forwarded: 1,
      refused: 1,
      errors: 1,
      routes: { 'GET /api/v3/movie': [2, '2026-11-24T11:00:00.000Z'] },
    });
  });

  it('holds a bounded number of route entries: past it, calls still count per hour, without their route', () => {
    for (let i = 0; i < MAX_ROUTE_ENTRIES; i += 1) counter.count(P1, 'GET', `/api/v3/movie/x${i}`, true, false);
    counter.count(P1, 'GET', '/api/v3/one-too-many', true, false);
    counter.count(P1, 'GET', '/api/v3/movie/x0', true, false);
    expect(counter.droppedRoutes).toBe(1);
    const [hour] = counter.take();
    const proxy = hour.proxies.get(P1);
    expect(proxy?.refused).toBe(MAX_ROUTE_ENTRIES + 2);
    expect(proxy?.routes.size).toBe(MAX_ROUTE_ENTRIES);
    expect(proxy?.routes.get('/api/v3/movie/x0')?.get('GET')?.count).toBe(2);
    // Taking frees the room.
    counter.count(P1, 'GET', '/api/v3/one-too-many', true, false);
    expect(counter.take()[0].proxies.get(P1)?.routes.size).toBe(1);
  });
});
