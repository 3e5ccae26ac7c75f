import { Logger } from '@nestjs/common';
import type { DatabaseLifecycle } from '@arrbiter/server/database';
import type { NotificationEvent, Notifier, ProxySubject } from '@arrbiter/server/notifications';
import type { ProxiesService } from '@arrbiter/server/proxies';
import type { Repository } from 'typeorm';
import type { AccessWarningEntity } from './entities/access-warning.entity';
import {
  OTHER_PATHS_METHOD,
  OTHER_PATHS_ROUTE_KEY,
  RefusedRequest,
  WARNING_ROWS_PER_PROXY,
  WarningRecorder,
} from './warning-recorder';

/** A database whose writes can be held "in progress" until the test lets them finish. */
class FakeDatabase {
  /** Paths of the warnings each upsert was asked to write, in order. */
  readonly writes: string[][] = [];
  /** The parameters of each upsert, in order. */
  readonly upserts: unknown[][] = [];
  /** Statements sent besides the upserts (the flush lock). */
  readonly others: string[] = [];
  private readonly held: { resolve: () => void; reject: (error: Error) => void }[] = [];
  holdNext = false;

  /** The rows the next upsert answers as new (the statement answers the new ones only). */
  newRows: unknown[] = [];
  private readonly query = (sql: string, parameters: unknown[]) => {
    if (!sql.includes('INSERT INTO access_warning')) {
      this.others.push(sql);
      return Promise.resolve([]);
    }
    this.upserts.push(parameters);
    this.writes.push(parameters[3] as string[]);
    const rows = this.newRows;
    this.newRows = [];
    if (!this.holdNext) return Promise.resolve(rows);
    this.holdNext = false;
    return new Promise<unknown[]>((resolve, reject) => this.held.push({ resolve: () => resolve(rows), reject }));
  };
  readonly warnings = {
    manager: {
      transaction: <T>(work: (manager: { query: FakeDatabase['query'] }) => Promise<T>) => work({ query: this.query }),
    },
  } as unknown as Repository<AccessWarningEntity>;

  /** Proxies deleted since their warnings were recorded. */
  readonly deleted = new Set<string>();
  readonly proxies = {
    existing: async (ids: readonly string[]) => new Set(ids.filter((id) => !this.deleted.has(id))),
    subjects: async (ids: readonly string[]) =>
      new Map<string, ProxySubject>(
        ids
          .filter((id) => !this.deleted.has(id))
          .map((id) => [id, { id, appId: 'app', appName: 'Overseerr', serviceId: 'svc', serviceName: 'Movies' }]),
      ),
  } as unknown as ProxiesService;

  readonly raised: NotificationEvent[] = [];
  readonly notifier = { raise: (event: NotificationEvent) => this.raised.push(event) } as Notifier;

  drains: (() => Promise<void>)[] = [];
  readonly lifecycle = {
    beforeClose: (drain: () => Promise<void>) => this.drains.push(drain),
  } as unknown as DatabaseLifecycle;

  release(): void {
    this.take().resolve();
  }

  fail(error: Error): void {
    this.take().reject(error);
  }

  written(): string[] {
    return this.writes.flat();
  }

  private take() {
    const next = this.held.shift();
    if (!next) throw new Error('no write is held');
    return next;
  }
}

const refused = (path: string): RefusedRequest => ({
  proxyId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  method: 'GET',
  path,
  route: null,
  routeKey: path,
});

describe(WarningRecorder.name, () => {
  let db: FakeDatabase;
  let recorder: WarningRecorder;

  beforeEach(() => {
    jest.useFakeTimers();
    db = new FakeDatabase();
    recorder = new WarningRecorder(db.warnings, db.proxies, db.lifecycle, db.notifier);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  /** Lets the flush timer fire (and what it started run) as often as it would in `seconds`. */
  const wait = (seconds: number) => jest.advanceTimersByTimeAsync(seconds * 1000);

  it('writes what was recorded on the next flush', async () => {
    recorder.record(refused('/api/v3/a'));
    recorder.record(refused('/api/v3/a'));
    expect(db.writes).toEqual([]);
    await wait(1);
    expect(db.writes).toEqual([['/api/v3/a']]);
    expect(recorder.written).toBe(1);
  });

  it('raises warning.new for each row the upsert answers as new, once written', async () => {
    const proxyId = refused('/x').proxyId;
    db.newRows = [
      {
        proxyId,
        method: 'get',
        routeKey: '/api/v3/movie/{id}',
        route: '/api/v3/movie/{id}',
        path: '/api/v3/movie/7',
        status: 'open',
        inserted: true,
      },
      {
        proxyId,
        method: 'get',
        routeKey: '/api/v3/calendar',
        route: '/api/v3/calendar',
        path: '/api/v3/calendar',
        status: 'open',
        inserted: false,
      },
    ];
    recorder.record(refused('/api/v3/movie/7'));
    recorder.record(refused('/api/v3/calendar'));
    expect(db.raised).toEqual([]);
    await wait(1);
    expect(db.raised).toEqual([
      {
        type: 'warning.new',
        proxy: { id: proxyId, appId: 'app', appName: 'Overseerr', serviceId: 'svc', serviceName: 'Movies' },
        method: 'get',
        route: '/api/v3/movie/{id}',
        routeKey: '/api/v3/movie/{id}',
        path: '/api/v3/movie/7',
        status: 'open',
        reopened: false,
      },
      expect.objectContaining({ route: '/api/v3/calendar', reopened: true }),
    ]);
    // Refused again: no row is new, nothing is raised.
    recorder.record(refused('/api/v3/movie/8'));
    await wait(1);
    expect(db.raised).toHaveLength(2);
  });

  it('leaves out the warnings of proxies deleted since they were recorded, and writes the others', async () => {
    const gone = '00000000-0000-4000-8000-0000000000ff';
    db.deleted.add(gone);
    recorder.record({ ...refused('/of-a-deleted-proxy'), proxyId: gone });
    recorder.record(refused('/api/v3/a'));

    await wait(1);

    expect(db.writes).toEqual([['/api/v3/a']]);
  });

  it('writes nothing when every proxy of the batch was deleted', async () => {
    const gone = '00000000-0000-4000-8000-0000000000ff';
    db.deleted.add(gone);
    recorder.record({ ...refused('/of-a-deleted-proxy'), proxyId: gone });

    await wait(1);

    expect(db.writes).toEqual([]);
  });

  it('keeps recording after the flush timer fires while a flush is still writing', async () => {
    recorder.record(refused('/first'));
    db.holdNext = true;
    await wait(1);
    expect(db.writes).toEqual([['/first']]); // held: this flush is still in progress

    recorder.record(refused('/during'));
    await wait(1); // the timer of '/during' fires while the first flush runs
    db.release();
    await wait(1);
    recorder.record(refused('/after'));
    await wait(5);

    expect(db.written()).toEqual(expect.arrayContaining(['/first', '/during', '/after']));
    expect(recorder.written).toBe(3);
  });

  it('keeps scheduling after a failed write that overlapped a timer, and writes the failed warnings again', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    recorder.record(refused('/first'));
    db.holdNext = true;
    await wait(1);

    recorder.record(refused('/during'));
    await wait(1);
    db.fail(new Error('connection reset'));
    await wait(1);
    recorder.record(refused('/after'));
    await wait(5);

    expect(db.written().filter((path) => path === '/first')).toHaveLength(2);
    expect(db.written()).toEqual(expect.arrayContaining(['/during', '/after']));
    expect(recorder.written).toBe(3);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('connection reset'));
  });

  it('holds at most 200 distinct warnings of a proxy, then counts the rest in its one "other paths" entry', async () => {
    const other = '00000000-0000-4000-8000-0000000000aa';
    for (let i = 0; i < 300; i += 1) recorder.record(refused(`/api/v3/p${i}`));
    recorder.record(refused('/api/v3/p0'));
    recorder.record(refused('/api/v3/p299'));
    for (let i = 0; i < 5; i += 1) recorder.record({ ...refused(`/api/v3/q${i}`), proxyId: other });
    await wait(1);

    const rows = db.upserts.flatMap((parameters) =>
      (parameters[0] as string[]).map((proxyId, i) => ({
        proxyId,
        method: (parameters[2] as string[])[i],
        path: (parameters[3] as string[])[i],
        routeKey: (parameters[5] as string[])[i],
        count: (parameters[6] as number[])[i],
        other: (parameters[11] as boolean[])[i],
      })),
    );
    const ofFirst = rows.filter((r) => r.proxyId === refused('/').proxyId);
    expect(ofFirst.filter((r) => !r.other)).toHaveLength(WARNING_ROWS_PER_PROXY);
    expect(ofFirst.find((r) => r.path === '/api/v3/p0')).toMatchObject({ count: 2, other: false });
    expect(ofFirst.filter((r) => r.other)).toEqual([
      {
        proxyId: refused('/').proxyId,
        method: OTHER_PATHS_METHOD,
        path: '/api/v3/p299',
        routeKey: OTHER_PATHS_ROUTE_KEY,
        count: 101,
        other: true,
      },
    ]);
    expect(rows.filter((r) => r.proxyId === other)).toHaveLength(5);
    // The cap the statement applies to what the database holds is sent with the batch.
    expect(db.upserts[0][12]).toBe(WARNING_ROWS_PER_PROXY);
    expect(db.others).toEqual([expect.stringContaining('pg_advisory_xact_lock')]);
  });

  it('keeps one sample path of at most 512 characters', async () => {
    const long = `/api/v3/x/${'a'.repeat(3000)}`;
    recorder.record(refused(long));
    await wait(1);
    const [written] = db.written();
    expect(written).toHaveLength(512);
    expect(written).toBe(`${long.slice(0, 511)}…`);
  });

  it('on close, waits for a running flush and then writes what arrived during it', async () => {
    recorder.record(refused('/first'));
    db.holdNext = true;
    await wait(1);
    recorder.record(refused('/during'));

    const closing = Promise.all(db.drains.map((drain) => drain()));
    db.release();
    await closing;

    expect(db.written()).toEqual(['/first', '/during']);
    // Nothing is scheduled once closed: the database is gone.
    recorder.record(refused('/late'));
    await wait(5);
    expect(db.written()).toEqual(['/first', '/during']);
  });
});
