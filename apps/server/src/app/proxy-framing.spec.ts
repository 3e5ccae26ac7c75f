import { createHash } from 'node:crypto';
import { EchoResponse, FakeServarr } from '@arrbiter/tools/fake-servarr';
import { holdsWithin } from '@arrbiter/server/testing';
import { random } from '../testing/random';
import { exchange, WireResponse } from '../testing/raw-socket';
import { proxiedUpstream } from '../testing/proxied-upstream';
import { startTestApp, TestApp } from '../testing/test-app';

/**
 * A differential test of request framing (docs/security.md): generated request heads and bodies are sent raw to
 * the gateway, and the requests the upstream parsed must be exactly those the gateway logged as
 * forwarded — nothing smuggled in a body, nothing outside the allowlist. Seeded; set
 * `FRAMING_SEED` and `FRAMING_CASES` to replay or widen a run (a failure prints its seed and case).
 */
const SEED = Number(process.env['FRAMING_SEED'] ?? 0x5eed_13);
const CASES = Number(process.env['FRAMING_CASES'] ?? 5_000);

const OVERRIDES = {
  '/api/v3/movie': ['get', 'post'],
  '/api/v3/movie/{id}': ['get', 'put', 'delete'],
  '/api/v3/calendar': ['get', 'head'],
  '/api/v3/command': ['post'],
};

/** The allowlist above as concrete (method, path) pairs, lower-cased: the test's own oracle. */
const ALLOWED = new Set([
  'GET /api/v3/movie',
  'POST /api/v3/movie',
  'GET /api/v3/movie/42',
  'PUT /api/v3/movie/42',
  'DELETE /api/v3/movie/42',
  'GET /api/v3/calendar',
  'HEAD /api/v3/calendar',
  'POST /api/v3/command',
]);
const PATHS = [
  '/api/v3/movie',
  '/api/v3/movie/42',
  '/api/v3/calendar',
  '/api/v3/command',
  '/API/V3/Movie/42',
  // Never allowed.
  '/api/v3/config/host',
  '/api/v3/system/shutdown',
  '/api/v3/movie/lookup',
  '/api/v3/movie/editor',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
/** Every header name the gateway reads, drops, rewrites or adds, and framing: what `Connection` may name. */
const HANDLED = [
  'content-length',
  'transfer-encoding',
  'x-api-key',
  'host',
  'authorization',
  'cookie',
  'via',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
  'expect',
  'http2-settings',
  'proxy-authorization',
  'content-type',
  'user-agent',
];
/** Bodies that are requests of their own, whole or waiting to be completed by the next request. */
const SMUGGLED = [
  'GET /radarr/api/v3/config/host HTTP/1.1\r\nHost: x\r\n\r\n',
  'POST /radarr/api/v3/system/shutdown HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
  'GET /radarr/api/v3/config/host HTTP/1.1\r\nX-Ignore: ',
  '0\r\n\r\nGET /radarr/api/v3/config/host HTTP/1.1\r\nHost: x\r\n\r\n',
];

interface Generated {
  method: string;
  path: string;
  /** The bytes of the whole request. */
  wire: string;
  /** The body as the generator framed it (what Node should parse), when the framing is valid. */
  body: string | undefined;
  /** Framing that Node must refuse (400, connection closed). */
  invalid: boolean;
}

class Generator {
  constructor(
    private readonly next: () => number,
    private readonly key: string,
  ) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Whether a case sends a second request right behind the first (pipelined). */
  pipelined(): boolean {
    return this.chance(0.3);
  }

  private chance(p: number): boolean {
    return this.next() < p;
  }

  /** Random upper/lower case, so that header names are matched as HTTP matches them. */
  private casing(name: string): string {
    if (this.chance(0.6)) return name.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase());
    return [...name].map((c) => (this.chance(0.5) ? c.toUpperCase() : c)).join('');
  }

  private header(name: string, value: string): string {
    const space = this.pick([' ', '', '  ', '\t']);
    const trail = this.pick(['', '', ' ', '\t']);
    return `${this.casing(name)}:${space}${value}${trail}\r\n`;
  }

  private bodyText(): string {
    if (this.chance(0.35)) return this.pick(SMUGGLED);
    const length = this.pick([0, 1, 7, 64, 300]);
    return JSON.stringify({ n: this.next() }).padEnd(length, 'x').slice(0, Math.max(length, 1));
  }

  private chunkedBody(body: string): string {
    let out = '';
    let rest = body;
    while (rest.length > 0) {
      const size = Math.min(rest.length, 1 + Math.floor(this.next() * 80));
      const extension = this.chance(0.1) ? ';ext=1' : '';
      out += `${size.toString(16)}${extension}\r\n${rest.slice(0, size)}\r\n`;
      rest = rest.slice(size);
    }
    return `${out}0\r\n${this.chance(0.1) ? 'X-Trailer: 1\r\n' : ''}\r\n`;
  }

  /**
   * One request. An h2c offer only ends a case: Node (24.x) parses nothing more on a connection after
   * an upgrade offer it declined, so a request pipelined behind one waits for the server's request
   * time-out (no request is lost or smuggled; a known limit, see the issue note).
   */
  request(last: boolean): Generated {
    const method = this.chance(0.02) ? 'get' : this.pick(METHODS);
    const path = this.pick(PATHS);
    const credential = this.next();
    const query = credential < 0.05 ? `?apikey=${this.key}` : this.chance(0.2) ? '?page=1&sortKey=title' : '';
    let head = `${method} /proxy/fuzz${path}${query} HTTP/1.1\r\n${this.header('host', 'arrbiter.test')}`;
    if (credential >= 0.05 && credential < 0.95) head += this.header('x-api-key', this.key);
    else if (credential >= 0.95) head += this.header('x-api-key', '0'.repeat(32));
    if (this.chance(0.1)) head += this.header('authorization', 'Bearer client');
    if (this.chance(0.1)) head += this.header('cookie', 'session=client');
    if (this.chance(0.1)) head += this.header('via', '1.0 front');
    if (this.chance(0.1)) head += this.header('x-forwarded-for', '203.0.113.1');
    const connection: string[] = [];
    if (this.chance(0.5))
      for (const name of HANDLED) if (this.chance(0.2)) connection.push(this.chance(0.3) ? this.casing(name) : name);
    if (this.chance(0.1)) connection.push('keep-alive');
    if (this.chance(0.04)) connection.push('close');
    const upgrade = this.next();
    const h2c = upgrade < 0.08 && last;
    if (h2c) {
      connection.push('Upgrade', 'HTTP2-Settings');
      head += this.header('upgrade', 'h2c') + this.header('http2-settings', 'AAMAAABkAARAAAAAAAIAAAAA');
    } else if (upgrade < 0.12) {
      // A WebSocket offer without `Connection: upgrade` is no upgrade.
      head += this.header('upgrade', 'websocket');
      connection.splice(0, connection.length, ...connection.filter((token) => token.toLowerCase() !== 'upgrade'));
    }
    if (connection.length > 0) head += this.header('connection', connection.join(this.pick([', ', ',', ' , '])));
    if (this.chance(0.1)) head += this.header('expect', '100-continue');
    if (this.chance(0.1)) head += this.header('te', 'trailers');

    // Node (24.x) neither refuses nor ends a request whose invalid chunked body follows an upgrade offer
    // it declined: the call waits for the time-outs (nothing is forwarded unframed; see the issue note).
    const framing = h2c ? this.next() * 0.9 : this.next();
    if (framing < 0.35)
      return { method, path, wire: `${head}\r\n`, body: '', invalid: method !== method.toUpperCase() };
    const body = this.bodyText();
    const chunked = this.chunkedBody(body);
    const length = Buffer.byteLength(body, 'latin1');
    if (framing < 0.65) {
      const value = this.chance(0.05) ? `0${length}` : String(length);
      return {
        method,
        path,
        wire: `${head}${this.header('content-length', value)}\r\n${body}`,
        body,
        invalid: method !== method.toUpperCase(),
      };
    }
    if (framing < 0.9) {
      const te = this.header('transfer-encoding', 'chunked');
      return {
        method,
        path,
        wire: `${head}${te}\r\n${chunked}`,
        body,
        // Node (llhttp) refuses white space after `chunked` once the head has been handed over (after a
        // declined upgrade offer it hands over an empty body instead): its verdict on the body is not the
        // generator's, what reached the upstream is still checked.
        invalid: method !== method.toUpperCase() || /[ \t]\r\n$/.test(te),
      };
    }
    // Ambiguous framing, which an HTTP/1.1 server must refuse.
    const ambiguous = this.pick([
      `${this.header('content-length', String(length))}${this.header('transfer-encoding', 'chunked')}\r\n${chunked}`,
      `${this.header('transfer-encoding', 'chunked')}${this.header('content-length', String(length))}\r\n${chunked}`,
      `${this.header('content-length', String(length))}${this.header('content-length', String(length + 1))}\r\n${body}`,
      `${this.header('transfer-encoding', 'gzip')}\r\n${body}`,
      `${this.header('transfer-encoding', 'chunked, identity')}\r\n${chunked}`,
      `${this.header('content-length', `${length}, ${length + 2}`)}\r\n${body}`,
      `${this.header('content-length', '-1')}\r\n${body}`,
      `${this.header('transfer-encoding', 'chunked')}\r\nzz\r\n${body}\r\n0\r\n\r\n`,
      ` Transfer-Encoding: chunked\r\n${this.header('content-length', String(length))}\r\n${body}`,
    ]);
    return { method, path, wire: `${head}${ambiguous}`, body: undefined, invalid: true };
  }
}

interface AccessLine {
  status: number | 'aborted';
  proxy: { method: string; path?: string; outcome: string };
}

/** What `sub` holds more often than `all` (multisets of strings); empty when `sub` ⊆ `all`. */
function notIn(sub: readonly string[], all: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const item of all) counts.set(item, (counts.get(item) ?? 0) + 1);
  const extra: string[] = [];
  for (const item of sub) {
    const left = counts.get(item) ?? 0;
    if (left === 0) extra.push(item);
    else counts.set(item, left - 1);
  }
  return extra;
}

const FORWARDED = new Set(['forwarded', 'upstream-unreachable', 'upstream-timeout']);

describe('request framing through the gateway (differential)', () => {
  let t: TestApp;
  let upstream: FakeServarr;
  let port: number;
  let key: string;
  /** Every call the gateway handed to the upstream, as `METHOD /path`. */
  const forwarded: string[] = [];
  /**
   * Those of them whose response was finished. The others were aborted: Node refused the request's
   * body after its head (an invalid `Transfer-Encoding` is only found then) or the client left, so the
   * upstream may or may not have parsed their head.
   */
  const completed: string[] = [];

  /** The gateway's access lines since the last look. */
  const collectForwarded = () => {
    const chunks = t.logs.splice(0, t.logs.length);
    for (const line of chunks.flatMap((chunk) => chunk.split('\n'))) {
      if (!line.includes('"msg":"proxy request"')) continue;
      const { status, proxy } = JSON.parse(line) as AccessLine;
      if (!FORWARDED.has(proxy.outcome)) continue;
      forwarded.push(`${proxy.method} ${proxy.path ?? ''}`);
      if (status !== 'aborted') completed.push(`${proxy.method} ${proxy.path ?? ''}`);
    }
  };
  const upstreamParsed = () =>
    upstream.requests.map((r) => `${r.method} ${r.url.split('?')[0].replace(/^\/radarr/, '')}`);

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    const admin = await t.admin();
    port = Number(new URL(await t.listen()).port);
    const proxied = await proxiedUpstream(admin, 'fuzz', 'Fuzz', OVERRIDES);
    upstream = proxied.upstream;
    key = proxied.proxy.key;
    // Only what the cases send counts from here.
    upstream.requests.length = 0;
    t.logs.length = 0;
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  /** Requests the upstream parsed that the gateway did not forward, and finished forwards it did not parse. */
  const mismatch = () => {
    const parsed = upstreamParsed();
    return { smuggled: notIn(parsed, forwarded), lost: notIn(completed, parsed) };
  };
  const agrees = () => {
    const { smuggled, lost } = mismatch();
    return smuggled.length === 0 && lost.length === 0;
  };

  it(`the upstream parses exactly the requests the gateway forwarded, and only allowed ones (${CASES} cases, seed ${SEED})`, async () => {
    const generator = new Generator(random(SEED), key);
    const stats = { requests: 0, forwarded: 0, refused: 0, invalid: 0, pipelined: 0 };
    const failures: string[] = [];
    const recent: string[] = [];

    for (let n = 0; n < CASES && failures.length === 0; n += 1) {
      const requests = generator.pipelined()
        ? [generator.request(false), generator.request(true)]
        : [generator.request(true)];
      if (requests.length > 1) stats.pipelined += 1;
      stats.requests += requests.length;
      const wire = requests.map((r) => r.wire).join('');
      const upstreamBefore = upstream.requests.length;
      const forwardedBefore = forwarded.length;
      const completedBefore = completed.length;
      const result = await exchange(
        port,
        Buffer.from(wire, 'latin1'),
        requests.map((r) => r.method),
        { timeoutMs: 3_000 },
      );
      recent.push(wire);
      if (recent.length > 4) recent.shift();
      const describeCase = () => `case ${n} (seed ${SEED}), the last cases: ${JSON.stringify(recent)}`;
      if (result.timedOut) failures.push(`no answer in time: ${describeCase()}`);

      // Each access line is written when its response closes: wait until the gateway's account and the
      // upstream's agree (a smuggled request never gets a line, so a failing case waits the full bound).
      await holdsWithin(
        () => {
          collectForwarded();
          return agrees();
        },
        { timeoutMs: 1_000, intervalMs: 5 },
      );
      const parsed = upstreamParsed();
      if (!agrees())
        failures.push(
          `${JSON.stringify(mismatch())}: upstream parsed ${JSON.stringify(parsed.slice(upstreamBefore))}, gateway forwarded ${JSON.stringify(forwarded.slice(forwardedBefore))} (finished ${JSON.stringify(completed.slice(completedBefore))}), answers ${JSON.stringify(result.responses.map((r) => r.status))}: ${describeCase()}`,
        );
      for (const call of parsed)
        if (!ALLOWED.has(call.toLowerCase().replace(/^[a-z]+/, (m) => m.toUpperCase())))
          failures.push(`outside the allowlist reached the upstream: ${call}: ${describeCase()}`);

      result.responses.forEach((response: WireResponse, i) => {
        const request = requests[i];
        if (response.status !== 200 || request.method === 'HEAD' || request.invalid) {
          if (response.status === 400 && request.invalid) stats.invalid += 1;
          else if (response.status !== 200) stats.refused += 1;
          return;
        }
        stats.forwarded += 1;
        const echo = JSON.parse(response.body.toString('latin1')) as EchoResponse;
        const body = Buffer.from(request.body ?? '', 'latin1');
        const expected = {
          method: request.method,
          path: request.path,
          body: { length: body.length, sha256: createHash('sha256').update(body).digest('hex') },
        };
        const got = { method: echo.method, path: echo.path, body: echo.body };
        if (JSON.stringify(got) !== JSON.stringify(expected))
          failures.push(`answer ${i} ${JSON.stringify(got)} is not for ${JSON.stringify(expected)}: ${describeCase()}`);
        const framed = echo.headers['content-length'] !== undefined || echo.headers['transfer-encoding'] !== undefined;
        if (body.length > 0 && !framed) failures.push(`forwarded without framing: ${describeCase()}`);
      });
    }

    // Whatever a case left on a pooled upstream connection is completed by the next requests there.
    for (let i = 0; i < 8; i += 1)
      await exchange(port, `GET /proxy/fuzz/api/v3/calendar HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\n\r\n`, ['GET']);
    await holdsWithin(
      () => {
        collectForwarded();
        return agrees();
      },
      { timeoutMs: 1_000, intervalMs: 5 },
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(mismatch()).toEqual({ smuggled: [], lost: [] });
    expect(completed.length).toBeGreaterThan(CASES / 10);
    // The generator reached every kind of outcome.
    expect(stats.forwarded).toBeGreaterThan(CASES / 10);
    expect(stats.refused).toBeGreaterThan(CASES / 10);
    expect(stats.invalid).toBeGreaterThan(CASES / 100);
  });
});
