import { canonicalizePath } from './canonical-path';

describe(canonicalizePath.name, () => {
  it.each([
    ['/api/v3/movie/42', '/api/v3/movie/42'],
    ['//api///v3//movie/', '/api/v3/movie'],
    ['/api/v3/movie//', '/api/v3/movie'],
    ['/api/v3/%6Dovie/%34%32', '/api/v3/movie/42'],
    ['/api/v3/Movie', '/api/v3/Movie'],
    ['/api/v3/file/a%20b%3f', '/api/v3/file/a%20b%3F'],
    ['/api/v3/x...y/...', '/api/v3/x...y/...'],
    ['', '/'],
  ])('%s → %s', (raw, expected) => {
    expect(canonicalizePath(raw)).toMatchObject({ ok: true, path: expected });
  });

  it.each([
    ['/api/../config', '"." or ".."'],
    ['/api/./v3', '"." or ".."'],
    ['/api/%2e%2e/config', '"." or ".."'],
    ['/api/%2E./config', '"." or ".."'],
    ['/api/.%2e/config', '"." or ".."'],
    ['/api/v3%2fconfig', 'encoded "/"'],
    ['/api/v3%2Fconfig', 'encoded "/"'],
    ['/api/v3%5cconfig', 'encoded "/"'],
    ['/api\\v3', 'backslash'],
    ['/api/v3/movie;jsessionid=1', '";"'],
    ['/api/v3/movie%3bx', 'encoded ";"'],
    ['/api/v3/movie%00', 'control character or NUL'],
    ['/api/v3/movie%0a', 'control character or NUL'],
    ['/api/v3/movie\u0000', 'control'],
    ['/api/v3/movie%zz', 'malformed'],
    ['/api/v3/movie%2', 'malformed'],
    ['/api/v3/mövie', 'non-ASCII'],
  ])('refuses %j', (raw, reason) => {
    const result = canonicalizePath(raw);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });
});
