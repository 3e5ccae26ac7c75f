import { diffGrants, effectiveAllowlist, grantsOf, overrideProblems, withGrants } from './allowlist';

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
