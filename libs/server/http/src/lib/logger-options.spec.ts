import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pinoHttp, Options } from 'pino-http';
import { buildLoggerOptions, sanitizeUrl } from './logger-options';

describe(sanitizeUrl.name, () => {
  it.each([
    ['/api/v3/movie?apikey=secret', '/api/v3/movie?apikey=[REDACTED]'],
    ['/x?ApiKey=secret&page=2', '/x?ApiKey=[REDACTED]&page=2'],
    ['/x?a=1&APIKEY=s1&apikey=s2', '/x?a=1&APIKEY=[REDACTED]&apikey=[REDACTED]'],
    ['/x?%61pikey=secret', '/x?%61pikey=[REDACTED]'],
    ['/x?apikey', '/x?apikey=[REDACTED]'],
    ['/x?apikeys=kept&keyapi=kept', '/x?apikeys=kept&keyapi=kept'],
    ['/no-query', '/no-query'],
    ['/api/auth/oidc/callback?code=abc&state=s&iss=x', '/api/auth/oidc/callback?code=[REDACTED]&state=s&iss=x'],
    ['/signalr?Access_Token=k', '/signalr?Access_Token=[REDACTED]'],
  ])('turns %s into %s', (url, expected) => {
    expect(sanitizeUrl(url)).toBe(expected);
  });
});

describe(buildLoggerOptions.name, () => {
  /** The access line pino-http writes for one request answered with `status`. */
  async function accessLine(status: number): Promise<Record<string, unknown>> {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const [options] = buildLoggerOptions({ level: 'info', destination }).pinoHttp as [Options, Writable];
    const log = pinoHttp(options, destination);
    const server = createServer((req, res) => {
      log(req, res);
      res.statusCode = status;
      res.end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/admin/v1/apps`);
    await new Promise<void>((done) => server.close(() => done()));
    return JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
  }

  it('logs a 503 (the database is away) as a warning, without a made-up error and its stack', async () => {
    const line = await accessLine(503);
    expect(line['level']).toBe(40);
    expect(line['err']).toBeUndefined();
    expect((line['res'] as { statusCode: number }).statusCode).toBe(503);
  });

  it('logs another 5xx as an error, still without a made-up stack', async () => {
    const line = await accessLine(500);
    expect(line['level']).toBe(50);
    expect(JSON.stringify(line)).not.toContain('"stack"');
  });
});
