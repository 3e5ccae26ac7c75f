import type { RouteUsage, WarningDto } from '@arrbiter/contracts';
import { routeRows, unusedGrants } from './usage-rows';

const route = (method: string, path: string, count = 1): RouteUsage => ({
  method,
  route: path,
  count,
  lastSeen: '2026-11-24T10:00:00.000Z',
});

const warning = (method: string, path: string, status: WarningDto['status'], id: string): WarningDto => ({
  id,
  proxyId: 'p',
  appId: 'a',
  method,
  path,
  route: path,
  shape: null,
  otherPaths: false,
  count: 1,
  firstSeen: '2026-11-24T10:00:00.000Z',
  lastSeen: '2026-11-24T10:00:00.000Z',
  status,
  knownCallers: [],
  risk: { sensitive: false, destructive: false, purpose: 'read library', reason: 'Neither sensitive nor destructive.' },
});

describe('usage rows', () => {
  const effective = {
    '/api/v3/Movie/{movieId}': ['get', 'put'],
    '/api/v3/calendar': ['get'],
    '/api/v3/system/status': ['get'],
  };

  it('marks each called route allowed or refused by the effective allowlist, routes compared by shape', () => {
    const rows = routeRows(
      [
        route('get', '/api/v3/movie/{id}', 5),
        route('delete', '/api/v3/movie/{id}'),
        route('get', '/api/v3/config/host'),
      ],
      effective,
      [],
    );
    expect(rows.map((r) => [r.method, r.route, r.allowed])).toEqual([
      ['get', '/api/v3/movie/{id}', true],
      ['delete', '/api/v3/movie/{id}', false],
      ['get', '/api/v3/config/host', false],
    ]);
  });

  it('finds the open or learned warning a grant would close, not a dismissed one', () => {
    const rows = routeRows(
      [route('get', '/api/v3/config/host'), route('delete', '/api/v3/movie/{id}'), route('post', '/api/v3/command')],
      effective,
      [
        warning('get', '/api/v3/config/host', 'open', 'w1'),
        warning('delete', '/api/v3/movie/{id}', 'learned', 'w2'),
        warning('post', '/api/v3/command', 'dismissed', 'w3'),
      ],
    );
    expect(rows.map((r) => r.warningId)).toEqual(['w1', 'w2', null]);
  });

  it('lists the grants nobody called in the period', () => {
    expect(unusedGrants(effective, [route('get', '/api/v3/movie/{id}'), route('get', '/api/v3/CALENDAR')])).toEqual([
      { path: '/api/v3/Movie/{movieId}', method: 'put' },
      { path: '/api/v3/system/status', method: 'get' },
    ]);
  });
});
