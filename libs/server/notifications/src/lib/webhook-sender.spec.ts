import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebhook } from './webhook-sender';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback whose answer each test sets. */
async function receiver(
  answer: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const message = { headers: { 'Content-Type': 'application/json' }, body: '{"hello":"world"}' };

/** The ways a receiver may write a secret back: as is, re-cased, percent-encoded, base64 and base64url. */
const ENCODINGS: Record<string, (value: string) => string> = {
  raw: (v) => v,
  lower: (v) => v.toLowerCase(),
  upper: (v) => v.toUpperCase(),
  percent: (v) => encodeURIComponent(v),
  'percent, every byte': (v) => [...Buffer.from(v)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
  base64: (v) => Buffer.from(v).toString('base64'),
  base64url: (v) => Buffer.from(v).toString('base64url'),
  'base64, lower': (v) => Buffer.from(v).toString('base64').toLowerCase(),
};

/** Secrets of a webhook URL: user, password, a token path segment, a query value. */
const USER = 'hook-User7';
const PASSWORD = 'P@ss:W0rd+/Key=';
const TOKEN = 'TokEn_Secret-AbcdEFGH12345678';
const QUERY_TOKEN = 'Qv+Secret/Value=9';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const SECRETS: Record<string, string> = {
  user: USER,
  password: PASSWORD,
  'user:password': `${USER}:${PASSWORD}`,
  'path token': TOKEN,
  'query value': QUERY_TOKEN,
  authorization: `Basic ${BASIC}`,
  'authorization token': BASIC,
};

/** Every encoding of every secret found in `text` (compared case-insensitively), as `secret/encoding`. */
function revealed(text: string): string[] {
  return Object.entries(SECRETS).flatMap(([name, secret]) =>
    Object.entries(ENCODINGS)
      .filter(([, encode]) => text.toLowerCase().includes(encode(secret).toLowerCase()))
      .map(([encoding]) => `${name}/${encoding}`),
  );
}

describe(sendWebhook.name, () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
  const start = async (answer: Parameters<typeof receiver>[0]) => {
    const r = await receiver(answer);
    servers.push(r.server);
    return r;
  };

  it('POSTs the message and its headers; credentials of the URL go as Basic authorization', async () => {
    const r = await start((_req, res) => res.writeHead(204).end());
    const base = new URL(r.url);
    const outcome = await sendWebhook(`http://bot:s%40cret@${base.host}/hook/token?x=1`, message);
    expect(outcome).toEqual({ ok: true, httpStatus: 204, retryable: false });
    expect(r.received).toHaveLength(1);
    expect(r.received[0]).toMatchObject({ method: 'POST', url: '/hook/token?x=1', body: '{"hello":"world"}' });
    expect(r.received[0].headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Arrbiter-Webhook/1',
      authorization: `Basic ${Buffer.from('bot:s@cret').toString('base64')}`,
    });
  });

  it('answers a short error line without the URL, and whether a retry may help', async () => {
    let status = 500;
    const r = await start((req, res) =>
      res.writeHead(status, { 'Retry-After': '30' }).end(`no ${req.url} ${'x'.repeat(5000)}`),
    );
    const url = `${r.url}/hooks/SuperSecretToken123`;
    const failed = await sendWebhook(url, message);
    expect(failed).toMatchObject({ ok: false, httpStatus: 500, retryable: true, retryAfterMs: 30_000 });
    expect(failed.error).toMatch(/^HTTP 500: no …/);
    expect(failed.error).not.toContain('SuperSecretToken123');
    expect(failed.error?.length).toBeLessThanOrEqual(300);
    for (const [code, retryable] of [
      [429, true],
      [408, true],
      [404, false],
      [400, false],
    ] as const) {
      status = code;
      expect(await sendWebhook(url, message)).toMatchObject({ ok: false, httpStatus: code, retryable });
    }
  });

  it('follows a redirect to the same host with the same body, never one to another host', async () => {
    const other = await start((_req, res) => res.writeHead(200).end());
    const r = await start((req, res) => {
      if (req.url === '/old') res.writeHead(308, { Location: '/new' }).end();
      else if (req.url === '/away')
        res.writeHead(302, { Location: `${other.url.replace('127.0.0.1', 'localhost')}/x` }).end();
      else res.writeHead(200).end();
    });
    expect(await sendWebhook(`${r.url}/old`, message)).toEqual({ ok: true, httpStatus: 200, retryable: false });
    expect(r.received.map((x) => `${x.method} ${x.url} ${x.body}`)).toEqual([
      'POST /old {"hello":"world"}',
      'POST /new {"hello":"world"}',
    ]);
    const away = await sendWebhook(`${r.url}/away`, message);
    expect(away).toEqual({
      ok: false,
      httpStatus: 302,
      retryable: false,
      error: 'answered 302, a redirect to another origin (scheme, host or port): not followed',
    });
    expect(other.received).toHaveLength(0);
  });

  it('never shows a secret of the URL or of its Authorization, in any encoding, when a receiver echoes it', async () => {
    let echo = (_req: IncomingMessage) => '';
    const r = await start((req, res) => res.writeHead(401).end(`{"error":"denied","got":"${echo(req)}"}`));
    const url = `http://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@${new URL(r.url).host}/hooks/123/${TOKEN}?auth=${encodeURIComponent(QUERY_TOKEN)}`;
    /** What the receiver got, as it would read it. */
    const got: Record<string, (req: IncomingMessage) => string> = {
      ...Object.fromEntries(Object.entries(SECRETS).map(([name, secret]) => [name, () => secret])),
      authorization: (req) => req.headers.authorization ?? '',
      'authorization token': (req) => (req.headers.authorization ?? '').replace(/^Basic /, ''),
      'the path and query': (req) => req.url ?? '',
    };
    const shown: string[] = [];
    for (const [what, read] of Object.entries(got)) {
      for (const [encoding, encode] of Object.entries(ENCODINGS)) {
        echo = (req) => encode(read(req));
        const outcome = await sendWebhook(url, message);
        expect(outcome).toMatchObject({ ok: false, httpStatus: 401 });
        expect(outcome.error).toMatch(/^HTTP 401: \{"error":"denied","got":"/);
        shown.push(...revealed(outcome.error ?? '').map((leak) => `${what} echoed ${encoding}: ${leak}`));
      }
    }
    expect(shown).toEqual([]);
    expect(r.received[0].headers.authorization).toBe(`Basic ${BASIC}`);
  });

  it('never follows a redirect to another origin (another port or scheme of the same host) with credentials', async () => {
    const other = await start((_req, res) => res.writeHead(200).end());
    const r = await start((req, res) => {
      const port = new URL(r.url).port;
      if (req.url === '/port') res.writeHead(302, { Location: `${other.url}/x` }).end();
      else if (req.url === '/scheme') res.writeHead(307, { Location: `https://127.0.0.1:${port}/x` }).end();
      else if (req.url === '/same') res.writeHead(307, { Location: `http://127.0.0.1:${port}/kept` }).end();
      else res.writeHead(200).end();
    });
    const host = new URL(r.url).host;
    const withCredentials = (path: string) => `http://${USER}:${encodeURIComponent(PASSWORD)}@${host}${path}`;
    for (const [path, status] of [
      ['/port', 302],
      ['/scheme', 307],
    ] as const) {
      expect(await sendWebhook(withCredentials(path), message)).toEqual({
        ok: false,
        httpStatus: status,
        retryable: false,
        error: `answered ${status}, a redirect to another origin (scheme, host or port): not followed`,
      });
    }
    // Without credentials in the URL, neither (a receiver's token may be its path).
    expect(await sendWebhook(`${r.url}/port`, message)).toMatchObject({ ok: false, httpStatus: 302 });
    expect(other.received).toEqual([]);
    expect(r.received.map((x) => x.url)).toEqual(['/port', '/scheme', '/port']);

    // The same origin keeps them.
    expect(await sendWebhook(withCredentials('/same'), message)).toEqual({
      ok: true,
      httpStatus: 200,
      retryable: false,
    });
    expect(r.received.slice(-2).map((x) => [x.url, x.headers.authorization])).toEqual([
      ['/same', `Basic ${BASIC}`],
      ['/kept', `Basic ${BASIC}`],
    ]);
  });

  it('gives up on a receiver that does not answer in time, and on one that cannot be reached', async () => {
    const r = await start(() => undefined);
    expect(await sendWebhook(`${r.url}/slow`, message, { timeoutMs: 200 })).toEqual({
      ok: false,
      retryable: true,
      error: 'no answer within 0.2 s',
    });
    const closed = await start((_req, res) => res.end());
    const port = new URL(closed.url).port;
    await new Promise((done) => closed.server.close(done));
    servers.splice(servers.indexOf(closed.server), 1);
    expect(await sendWebhook(`http://127.0.0.1:${port}/hook`, message)).toEqual({
      ok: false,
      retryable: true,
      error: 'cannot connect (ECONNREFUSED)',
    });
  });
});
