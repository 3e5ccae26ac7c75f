import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { ChangeBus } from '@arrbiter/server/database';
import { LogOutput } from '@arrbiter/server/http';
import { AccessLog } from './access-log';
import type { AccessLogFields } from './proxy-context';
import type { ProxyRegistry, ProxyState } from './proxy-registry';
import { CallRing, RECENT_CALLS_ARMED_MS, RECENT_CALLS_KEPT, RecentCall, RecentCalls } from './recent-calls';

/** Two proxies of app `overseerr` and one of `homepage`, with no catalog routes (risk by the path alone). */
function registryOf(): ProxyRegistry {
  const proxy = (id: string, appSlug: string) =>
    ({
      id,
      appSlug,
      service: { type: 'radarr', catalog: { resolve: () => undefined } },
      extraRoutes: undefined,
    }) as unknown as ProxyState;
  const proxies = new Map([
    ['p1', proxy('p1', 'overseerr')],
    ['p2', proxy('p2', 'overseerr')],
    ['p3', proxy('p3', 'homepage')],
  ]);
  return { proxy: (id: string) => proxies.get(id) } as unknown as ProxyRegistry;
}

const request = (url: string) => ({ url }) as IncomingMessage;

function forwarded(proxyId: string, path: string, app = 'overseerr'): AccessLogFields {
  return { method: 'GET', app, proxyId, path, route: path, outcome: 'forwarded' };
}

function call(n: number): RecentCall {
  return { at: n, method: 'GET', path: `/api/v3/movie/${n}`, route: null, outcome: 'allowed', status: 200 };
}

describe(CallRing.name, () => {
  it('keeps the last calls, newest first, overwriting the oldest', () => {
    const ring = new CallRing(3);
    expect(ring.newestFirst()).toEqual([]);
    ring.push(call(1));
    ring.push(call(2));
    expect(ring.newestFirst().map((c) => c.at)).toEqual([2, 1]);
    for (let n = 3; n <= 7; n++) ring.push(call(n));
    expect(ring.newestFirst().map((c) => c.at)).toEqual([7, 6, 5]);
  });

  it(`holds at most ${RECENT_CALLS_KEPT} by default`, () => {
    const ring = new CallRing();
    for (let n = 1; n <= 250; n++) ring.push(call(n));
    const kept = ring.newestFirst();
    expect(kept).toHaveLength(RECENT_CALLS_KEPT);
    expect(kept[0].at).toBe(250);
    expect(kept[RECENT_CALLS_KEPT - 1].at).toBe(151);
  });
});

describe(RecentCalls.name, () => {
  let changes: ChangeBus;
  let recent: RecentCalls;
  let published: { topic: string; id?: string }[];

  beforeEach(() => {
    jest.useFakeTimers();
    changes = new ChangeBus();
    published = [];
    changes.sendWith({ send: async (change) => void published.push({ topic: change.topic, id: change.id }) });
    recent = new RecentCalls(registryOf(), new Clock(), changes, null);
  });

  afterEach(() => {
    recent.onModuleDestroy();
    jest.useRealTimers();
  });

  it('records nothing until a view arms the proxy, then only that proxy, newest first', async () => {
    expect(recent.armed).toBe(false);
    recent.record(request('/proxy/overseerr/api/v3/movie'), forwarded('p1', '/api/v3/movie'), 200);
    expect((await recent.view('p1'))?.items).toEqual([]);
    expect(recent.armed).toBe(true);
    recent.record(request('/proxy/overseerr/api/v3/movie'), forwarded('p1', '/api/v3/movie'), 200);
    recent.record(request('/proxy/overseerr/api/v3/series'), forwarded('p2', '/api/v3/series'), 200);
    jest.advanceTimersByTime(1_000);
    recent.record(
      request('/proxy/overseerr/api/v3/config/host?apikey=f00dfeedcafe'),
      { ...forwarded('p1', '/api/v3/config/host'), outcome: 'forbidden' },
      403,
    );
    const view = await recent.view('p1');
    expect(view?.items.map((item) => [item.outcome, item.status, item.path])).toEqual([
      ['refused', 403, '/api/v3/config/host'],
      ['allowed', 200, '/api/v3/movie'],
    ]);
    // The risk is the permissions lib's, computed as the view reads.
    expect(view?.items[0].risk).toMatchObject({ sensitive: true });
    expect(view?.items[1].risk).toMatchObject({ sensitive: false });
    expect(view?.replicas).toBe(1);
    expect(JSON.stringify(view)).not.toContain('f00dfeedcafe');
  });

  it("puts a 401 into every armed proxy of the slug's app, by its path without the query", async () => {
    await recent.view('p1');
    await recent.view('p3');
    const unauthorized: AccessLogFields = { method: 'GET', app: 'overseerr', outcome: 'unauthorized' };
    recent.record(request('/proxy/overseerr//api/v3/movie?apikey=0123456789abcdef'), unauthorized, 401);
    recent.record(request('/proxy/nobody/api/v3/movie'), { ...unauthorized, app: 'nobody' }, 401);
    const items = (await recent.view('p1'))?.items;
    expect(items).toEqual([
      expect.objectContaining({ outcome: 'unauthorized', status: 401, path: '/api/v3/movie', route: null, risk: null }),
    ]);
    expect(JSON.stringify(items)).not.toContain('0123456789abcdef');
    expect((await recent.view('p3'))?.items).toEqual([]);
  });

  it('records a rate-limited call by its path after the slug', async () => {
    await recent.view('p1');
    const limited: AccessLogFields = { method: 'POST', app: 'overseerr', proxyId: 'p1', outcome: 'rate-limited' };
    recent.record(request('/proxy/overseerr/api/v3/command?x=1'), limited, 429);
    expect((await recent.view('p1'))?.items).toEqual([
      expect.objectContaining({ outcome: 'rate-limited', status: 429, method: 'post', path: '/api/v3/command' }),
    ]);
  });

  it('announces an arming when new or running out, not on every poll', async () => {
    await recent.view('p1');
    expect(published).toEqual([{ topic: 'recent-calls', id: 'p1' }]);
    jest.advanceTimersByTime(4 * 60_000);
    await recent.view('p1');
    expect(published).toHaveLength(1);
    // That poll extended the arming to 14 minutes: at 9 minutes and a bit, less than five remain.
    jest.advanceTimersByTime(5 * 60_000 + 1);
    await recent.view('p1');
    expect(published).toHaveLength(2);
  });

  it("arms on another replica's announcement, even for a proxy not loaded here yet", async () => {
    await changes.deliver({ topic: 'recent-calls', id: 'p-new', origin: 'remote' });
    expect(recent.armedUntil('p-new')).toBe(Date.now() + RECENT_CALLS_ARMED_MS);
    expect(published).toEqual([]);
  });

  it("arms on another replica's announcement, without announcing it again", async () => {
    await changes.deliver({ topic: 'recent-calls', id: 'p2', origin: 'remote' });
    expect(recent.armedUntil('p2')).toBe(Date.now() + RECENT_CALLS_ARMED_MS);
    expect(published).toEqual([]);
    recent.record(request('/proxy/overseerr/api/v3/movie'), forwarded('p2', '/api/v3/movie'), 200);
    expect((await recent.view('p2'))?.items).toHaveLength(1);
  });

  it('drops the rings when the arming ends, and is off again', async () => {
    const view = await recent.view('p1');
    expect(view?.armedUntil).toBe(new Date(Date.now() + RECENT_CALLS_ARMED_MS).toISOString());
    recent.record(request('/proxy/overseerr/api/v3/movie'), forwarded('p1', '/api/v3/movie'), 200);
    jest.advanceTimersByTime(RECENT_CALLS_ARMED_MS);
    expect(recent.armed).toBe(false);
    expect(recent.armedUntil('p1')).toBeUndefined();
    // A new view starts an empty ring.
    expect((await recent.view('p1'))?.items).toEqual([]);
  });

  it('answers undefined for a proxy the proxy state does not hold', async () => {
    expect(await recent.view('nope')).toBeUndefined();
    expect(recent.armed).toBe(false);
  });
});

describe('the access line feeds recent calls', () => {
  /** A response the access log tracks: `close` is emitted by the test. */
  function respond(log: AccessLog, fields: AccessLogFields) {
    const response = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true });
    log.track(request('/proxy/overseerr/api/v3/movie'), response as unknown as ServerResponse, fields);
    response.emit('close');
  }

  it('asks one boolean while no view is open, and records once one is', async () => {
    const recent = new RecentCalls(registryOf(), new Clock(), new ChangeBus(), null);
    const record = jest.spyOn(recent, 'record');
    let reads = 0;
    let armed = false;
    Object.defineProperty(recent, 'armed', {
      get: () => {
        reads += 1;
        return armed;
      },
      set: (value: boolean) => void (armed = value),
    });
    const output = new LogOutput('error', { write: () => undefined });
    const log = new AccessLog({ accessLogWriter: 'direct' } as AppConfig, output, null, null, recent);
    respond(log, forwarded('p1', '/api/v3/movie'));
    expect([reads, record.mock.calls.length]).toEqual([1, 0]);
    await recent.view('p1');
    respond(log, forwarded('p1', '/api/v3/movie'));
    expect(record).toHaveBeenCalledTimes(1);
    expect((await recent.view('p1'))?.items).toHaveLength(1);
    recent.onModuleDestroy();
  });
});
