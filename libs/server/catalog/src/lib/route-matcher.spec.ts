import { runInNewContext } from 'node:vm';
import { effectiveAllowlist } from '@arrbiter/shared/allowlist-rules';
import { radarrV3OpenApi } from '../testing/radarr-v3.openapi';
import { CompiledAllowlist } from './compiled-allowlist';
import { mergeCatalogs } from './catalog';
import { parseOpenApi } from './openapi';
import { moreSpecific, RouteMatcher } from './route-matcher';
import { parseRoutePath } from './route-path';

const catalog = parseOpenApi(radarrV3OpenApi);
/** The same description as API version v5 (Sonarr serves v5 and, deprecated, v3). */
const radarrV5OpenApi: unknown = JSON.parse(JSON.stringify(radarrV3OpenApi).replaceAll('/api/v3/', '/api/v5/'));
const matcher = new RouteMatcher(catalog);
const segs = (path: string) => path.split('/').filter(Boolean);
const resolve = (method: 'get' | 'put' | 'delete' | 'head', path: string) => matcher.resolve(segs(path), method)?.path;

describe(RouteMatcher.name, () => {
  it('drops the UI catch-all and keeps the API routes', () => {
    expect(catalog.map((r) => r.path)).not.toContain('/{path}');
    expect(catalog.map((r) => r.path)).toContain('/api/v3/movie/{id}');
  });

  it('prefers a literal segment over a parameter', () => {
    expect(resolve('get', '/api/v3/movie/42')).toBe('/api/v3/movie/{id}');
    expect(resolve('get', '/api/v3/movie/lookup')).toBe('/api/v3/movie/lookup');
    expect(resolve('delete', '/api/v3/movie/editor')).toBe('/api/v3/movie/editor');
  });

  it('matches case-insensitively', () => {
    expect(resolve('get', '/API/V3/Movie/LOOKUP')).toBe('/api/v3/movie/lookup');
    expect(resolve('get', '/Api/v3/MOVIE/7')).toBe('/api/v3/movie/{id}');
  });

  it('only takes digits for a parameter typed integer for that method', () => {
    expect(resolve('get', '/api/v3/movie/abc')).toBeUndefined();
    expect(resolve('get', '/api/v3/movie/-1')).toBeUndefined();
    // PUT types the same parameter as a string.
    expect(resolve('put', '/api/v3/movie/abc')).toBe('/api/v3/movie/{id}');
    // HEAD is not described: any operation's integer typing applies.
    expect(resolve('head', '/api/v3/movie/abc')).toBeUndefined();
  });

  it('matches one non-empty segment per parameter, never more', () => {
    expect(resolve('get', '/api/v3/movie/1/2')).toBeUndefined();
    expect(resolve('get', '/api/v3/movie/1/file')).toBe('/api/v3/movie/{id}/file');
    expect(resolve('get', '/api/v3')).toBeUndefined();
  });

  it('backtracks from a literal branch that dead-ends', () => {
    const m = new RouteMatcher([{ path: '/a/b/c' }, { path: '/a/{x}/d' }]);
    expect(m.resolve(['a', 'b', 'd'], 'get')?.path).toBe('/a/{x}/d');
    expect(m.resolve(['a', 'b', 'c'], 'get')?.path).toBe('/a/b/c');
  });

  it('matches parameters embedded in a segment between literals and parameters', () => {
    const m = new RouteMatcher([{ path: '/feed/{name}.ics' }, { path: '/feed/{any}' }, { path: '/feed/calendar.ics' }]);
    expect(m.resolve(['feed', 'calendar.ics'], 'get')?.path).toBe('/feed/calendar.ics');
    expect(m.resolve(['feed', 'radarr.ics'], 'get')?.path).toBe('/feed/{name}.ics');
    expect(m.resolve(['feed', 'radarr'], 'get')?.path).toBe('/feed/{any}');
  });

  it('resolves an adversarial request against parameters with no literal between them without hanging', () => {
    // As a regular expression, `x[^/]+[^/]+…y` backtracks through every split of the request: an 80-character
    // request blocked the event loop for seconds. A synchronous hang cannot be cut short by the test's own
    // timeout (it only fires once the loop is free again), so the call runs under a watchdog that interrupts it.
    const m = new RouteMatcher([{ path: '/api/v3/x{a}{b}{c}{d}{e}{f}{g}y' }]);
    const attack = segs(`/api/v3/x${'a'.repeat(80)}`);
    const resolveOrHang = (segments: string[]) =>
      runInNewContext('resolve()', { resolve: () => m.resolve(segments, 'get')?.path ?? null }, { timeout: 5000 });
    expect(resolveOrHang(attack)).toBeNull();
    expect(resolveOrHang(segs(`/api/v3/x${'a'.repeat(80)}y`))).toBe('/api/v3/x{a}{b}{c}{d}{e}{f}{g}y');
    // Seven parameters in one gap still need seven characters, as before.
    expect(resolveOrHang(segs('/api/v3/xaaaaaay'))).toBeNull();
    expect(resolveOrHang(segs('/api/v3/xaaaaaaay'))).toBe('/api/v3/x{a}{b}{c}{d}{e}{f}{g}y');
  });

  it('compiles a segment with embedded parameters to literal parts, never to a regular expression', () => {
    const [segment] = parseRoutePath('/x{a}.{b}-{c}y');
    const regexes = (value: unknown): number =>
      value instanceof RegExp
        ? 1
        : typeof value === 'object' && value !== null
          ? Object.values(value).reduce<number>((n, v) => n + regexes(v), 0)
          : 0;
    expect(regexes(segment)).toBe(0);
  });

  it('matches embedded parameters exactly as the anchored pattern they stand for', () => {
    // Every template over literals `a`, `.` and parameters, against every request of up to 5 characters
    // over `a`, `A`, `b`, `.`: the same answers as `^…[^/]+…$` (case-insensitive) on these small inputs.
    const pieces = ['a', '.', '{p}', '{q}'];
    const templates = new Set<string>();
    const grow = (t: string, depth: number) => {
      if (t.includes('{') && !/^\{[^{}]+\}$/.test(t)) templates.add(t);
      if (depth > 0) for (const piece of pieces) grow(t + piece, depth - 1);
    };
    grow('', 4);
    const requests = [''];
    for (let length = 1; length <= 5; length += 1)
      for (const r of requests.filter((x) => x.length === length - 1)) for (const c of 'aAb.') requests.push(r + c);
    const mismatches: string[] = [];
    let compared = 0;
    for (const template of templates) {
      const pattern = template
        .split(/\{[^{}]+\}/)
        .map((part) => part.replace(/[.]/g, '\\.'))
        .join('[^/]+');
      const reference = new RegExp(`^${pattern}$`, 'i');
      const table = new RouteMatcher([{ path: `/r/${template}` }]);
      for (const request of requests.filter(Boolean)) {
        const matched = table.resolve(['r', request], 'get') !== undefined;
        if (matched !== reference.test(request)) mismatches.push(`${template} ${request} ${matched}`);
        compared += 1;
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(100_000);
  });

  it('compares the specificity of resolutions from two tables', () => {
    const extra = new RouteMatcher([{ path: '/api/v3/movie/{id}/special' }, { path: '/api/v3/{x}/lookup' }]);
    const a = matcher.resolve(segs('/api/v3/movie/lookup'), 'get');
    const b = extra.resolve(segs('/api/v3/movie/lookup'), 'get');
    expect(moreSpecific(a, b)?.path).toBe('/api/v3/movie/lookup');
    expect(moreSpecific(b, a)?.path).toBe('/api/v3/movie/lookup');
    expect(moreSpecific(undefined, b)?.path).toBe('/api/v3/{x}/lookup');
  });
});

describe('allowlists', () => {
  const template = { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get', 'put'], '/api/v3/calendar': ['get'] };

  it('replace a path per override, deny with [], inherit without one', () => {
    const effective = effectiveAllowlist(template, { '/api/v3/movie/{movieId}': ['delete'], '/api/v3/calendar': [] });
    expect(effective).toEqual({ '/api/v3/movie': ['get'], '/api/v3/movie/{movieId}': ['delete'] });
    expect(effectiveAllowlist(template, {})).toEqual(template);
    expect(effectiveAllowlist({}, {})).toEqual({});
  });

  it('grant by route shape and method; GET does not grant HEAD', () => {
    const allow = new CompiledAllowlist({ '/API/v3/Movie/{x}': ['get'] });
    expect(allow.allows('/api/v3/movie/{}', 'get')).toBe(true);
    expect(allow.allows('/api/v3/movie/{}', 'head')).toBe(false);
    expect(allow.allows('/api/v3/movie', 'get')).toBe(false);
  });
});

describe(mergeCatalogs.name, () => {
  it('unions the routes of several API versions', () => {
    const merged = mergeCatalogs([parseOpenApi(radarrV5OpenApi), parseOpenApi(radarrV3OpenApi)]);
    const paths = merged.map((r) => r.path);
    expect(paths).toContain('/api/v5/movie/{id}');
    expect(paths).toContain('/api/v3/movie/{id}');
    expect(paths.filter((p) => p === '/ping')).toHaveLength(1);
  });
});
