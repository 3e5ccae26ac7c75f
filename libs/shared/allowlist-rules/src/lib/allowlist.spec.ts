import type { AllowlistMap } from '@arrbiter/contracts';
import {
  diffGrants,
  effectiveAllowlist,
  grantsOf,
  overrideProblems,
  overridesFor,
  reviseAllowlist,
  withGrants,
} from './allowlist';
import { routeShape } from './route-template';

describe('allowlists', () => {
  const template = { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'], '/api/v3/calendar': ['get'] };

  it('effective: overrides replace per path (by route shape), [] denies, absent inherits', () => {
    expect(effectiveAllowlist(template, { '/api/v3/Movie/{movieId}': ['delete'], '/api/v3/calendar': [] })).toEqual({
      '/api/v3/movie': ['get'],
      '/api/v3/Movie/{movieId}': ['delete'],
    });
    expect(effectiveAllowlist(template, {})).toEqual(template);
    expect(effectiveAllowlist({}, {})).toEqual({});
  });

  it('grants on top of the effective list for the path, keeping what the template granted', () => {
    expect(withGrants(template, {}, [{ path: '/api/v3/movie/{id}', method: 'delete' }])).toEqual({
      '/api/v3/movie/{id}': ['delete', 'get'],
    });
    // An existing override of the same route (other parameter name) is extended, not duplicated.
    expect(
      withGrants(template, { '/api/v3/movie/{movieId}': ['put'] }, [{ path: '/api/v3/movie/{id}', method: 'delete' }]),
    ).toEqual({ '/api/v3/movie/{movieId}': ['delete', 'put'] });
    // A denied path opens for just the granted method.
    expect(withGrants(template, { '/api/v3/calendar': [] }, [{ path: '/api/v3/calendar', method: 'get' }])).toEqual({
      '/api/v3/calendar': ['get'],
    });
  });

  it('diffs two effective allowlists by route shape and method', () => {
    expect(diffGrants(template, { '/api/v3/movie/{movieId}': ['get', 'put'], '/api/v3/movie': ['get'] })).toEqual({
      added: [{ path: '/api/v3/movie/{movieId}', method: 'put' }],
      removed: [{ path: '/api/v3/calendar', method: 'get' }],
    });
    expect(grantsOf({ '/b': ['get'], '/a': ['put', 'get'] })).toEqual([
      { path: '/a', method: 'get' },
      { path: '/a', method: 'put' },
      { path: '/b', method: 'get' },
    ]);
  });
});

describe(reviseAllowlist.name, () => {
  it('adds grants to the path of the same route in its spelling, takes grants away and drops emptied paths', () => {
    const allowlist = { '/api/v3/Movie/{movieId}': ['get'], '/api/v3/calendar': ['get'], '/ping': ['get', 'head'] };
    expect(
      reviseAllowlist(
        allowlist,
        [
          { path: '/api/v3/movie/{id}', method: 'put' },
          { path: '/api/v3/tag', method: 'get' },
        ],
        [
          { path: '/api/v3/calendar', method: 'get' },
          { path: '/PING', method: 'head' },
          { path: '/api/v3/unknown', method: 'get' },
        ],
      ),
    ).toEqual({ '/api/v3/Movie/{movieId}': ['get', 'put'], '/ping': ['get'], '/api/v3/tag': ['get'] });
  });
});

describe(overridesFor.name, () => {
  const template = { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get', 'delete'], '/api/v3/calendar': ['get'] };
  const byShape = (map: AllowlistMap) =>
    Object.fromEntries(Object.entries(map).map(([path, methods]) => [routeShape(path), [...methods].sort()]));

  it('changes the overrides as little as possible to give the wanted effective allowlist', () => {
    const overrides = { '/api/v3/Movie': ['get', 'post'], '/api/v3/tag': ['get'], '/api/v3/queue': [] };
    const wanted = { '/api/v3/movie': ['get', 'post'], '/api/v3/movie/{id}': ['get'], '/signalr/messages': ['get'] };
    expect(overridesFor(template, overrides, wanted)).toEqual({
      // Already right: kept as written.
      '/api/v3/Movie': ['get', 'post'],
      '/api/v3/queue': [],
      // The template's methods, less one; a new path; a denial where the template grants.
      '/api/v3/movie/{id}': ['get'],
      '/signalr/messages': ['get'],
      '/api/v3/calendar': [],
    });
  });

  it('gives exactly the wanted effective allowlist, whatever the template and overrides', () => {
    const paths = ['/a', '/a/{id}', '/A/{x}', '/b', '/c/{id}/d', '/e'];
    const methods = ['get', 'put', 'delete'];
    let seed = 7;
    const rng = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const randomMap = (): AllowlistMap => {
      const map: AllowlistMap = {};
      const shapes = new Set<string>();
      for (const path of paths) {
        if (rng() < 0.5 || shapes.has(routeShape(path))) continue;
        shapes.add(routeShape(path));
        map[path] = methods.filter(() => rng() < 0.5);
      }
      return map;
    };
    for (let round = 0; round < 300; round += 1) {
      const [template, overrides, wanted] = [randomMap(), randomMap(), effectiveAllowlist(randomMap(), {})];
      const result = overridesFor(template, overrides, wanted);
      expect({ round, effective: byShape(effectiveAllowlist(template, result)) }).toEqual({
        round,
        effective: byShape(wanted),
      });
    }
  });
});

describe(overrideProblems.name, () => {
  it('refuses a path whose parameters have no literal text between them, with the reason', () => {
    expect(overrideProblems({ '/api/v3/x{a}{b}{c}{d}{e}{f}{g}y': ['get'], '/api/v3/movie/{id}': ['get'] })).toEqual([
      'overrides: "/api/v3/x{a}{b}{c}{d}{e}{f}{g}y": segment "x{a}{b}{c}{d}{e}{f}{g}y" has parameters with no literal text between them ({a}{b}): separate them, e.g. {a}-{b}',
    ]);
    expect(overrideProblems({ '/x/{a}.{b}.{c}.{d}.{e}': ['get'] })).toEqual([
      expect.stringContaining('has 5 parameters (at most 4 in one segment)'),
    ]);
  });

  it('refuses keys that are not paths, including the own __proto__ key JSON.parse creates', () => {
    const overrides: unknown = JSON.parse(
      '{"__proto__":["get"],"constructor":["get"],"prototype":["get"],"api":["get"]}',
    );
    expect(overrideProblems(overrides)).toEqual(
      ['__proto__', 'constructor', 'prototype', 'api'].map(
        (key) => `overrides: "${key}" is not an API path (absolute, segments literal or {param}, no query)`,
      ),
    );
  });
});
