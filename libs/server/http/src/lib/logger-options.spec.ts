import { sanitizeUrl } from './logger-options';

describe(sanitizeUrl.name, () => {
  it.each([
    ['/api/v3/movie?apikey=secret', '/api/v3/movie?apikey=[REDACTED]'],
    ['/x?ApiKey=secret&page=2', '/x?ApiKey=[REDACTED]&page=2'],
    ['/x?a=1&APIKEY=s1&apikey=s2', '/x?a=1&APIKEY=[REDACTED]&apikey=[REDACTED]'],
    ['/x?%61pikey=secret', '/x?%61pikey=[REDACTED]'],
    ['/x?apikey', '/x?apikey=[REDACTED]'],
    ['/x?apikeys=kept&keyapi=kept', '/x?apikeys=kept&keyapi=kept'],
    ['/no-query', '/no-query'],
  ])('turns %s into %s', (url, expected) => {
    expect(sanitizeUrl(url)).toBe(expected);
  });
});
