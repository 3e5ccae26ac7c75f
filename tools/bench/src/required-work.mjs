// Benchmark child process: the bare passthrough plus only the per-call work the specification requires
// of every forwarded call, written by hand, without Nest and without any feature: a reference for the
// performance rule, not a proxy to use (`required-work.mjs <port> <upstream origin> <upstream key>
// <apps file> <log file>`; the apps file holds "slug key" per line, as wrk.lua reads it).
//
// Per call: the key's digest looked up in a map; the app's slug and state checked; the path
// canonicalised (Arrbiter's fast path for a plain path) and resolved to a route in a segment tree; the
// method checked against the route's grants; the upstream's key in place of the client's, the method
// and URL override headers dropped, `Via` and `X-Forwarded-For/-Proto/-Host` added; the upstream
// time-out; the answer's `Set-Cookie` and `Clear-Site-Data` dropped, `X-Content-Type-Options: nosniff`
// and `Content-Security-Policy: sandbox` set; one access line in pino's format, written in batches to a
// file. What it leaves out, Arrbiter also does: warnings, learning mode, rate limits, usage counting,
// scrubbing, the lingering close, problem documents, metrics.
import { hash } from 'node:crypto';
import { openSync, readFileSync, writeSync } from 'node:fs';
import { Agent, createServer } from 'node:http';
import { hostname } from 'node:os';
import { createProxyMiddleware } from 'http-proxy-middleware';

const [port, target, upstreamKey, appsFile, logFile] = process.argv.slice(2);

// The benchmark's allowlist (tools/bench/src/seed.ts grants these), as a tree of segments; `{}` is a parameter.
const ROUTES = { GET: ['/api/v3/movie', '/api/v3/movie/{id}', '/api/v3/system/status'] };
const tree = new Map();
for (const [method, paths] of Object.entries(ROUTES))
  for (const path of paths) {
    let node = tree;
    for (const segment of path.split('/').slice(1)) {
      const key = segment.startsWith('{') ? '{}' : segment.toLowerCase();
      if (!node.has(key)) node.set(key, new Map());
      node = node.get(key);
    }
    const grants = node.get('') ?? { route: path, methods: new Set() };
    grants.methods.add(method);
    node.set('', grants);
  }

function resolveRoute(segments) {
  let node = tree;
  for (const segment of segments) {
    node = node.get(segment.toLowerCase()) ?? node.get('{}');
    if (!node) return undefined;
  }
  return node.get('');
}

// Never forwarded: they would make the upstream read another method or path than the one checked (a bypass).
const OVERRIDES = ['x-http-method-override', 'x-http-method', 'x-method-override', 'x-original-url', 'x-rewrite-url'];

const PLAIN = /^[A-Za-z0-9\-._~!$&'()*+,=:@/]*$/;
const DOT_SEGMENT = /(^|\/)\.{1,2}(\/|$)/;

const apps = new Map();
for (const line of readFileSync(appsFile, 'utf8').split('\n')) {
  const [slug, key] = line.split(' ');
  if (slug) apps.set(hash('sha256', key), { slug, proxyId: `proxy-${slug}`, enabled: true });
}

const log = openSync(logFile, 'a');
let pending = '';
const flush = () => {
  const lines = pending;
  pending = '';
  writeSync(log, lines);
};
const pid = process.pid;
const host = hostname();

const proxy = createProxyMiddleware({
  target,
  changeOrigin: true,
  agent: new Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' }),
  headers: { 'x-api-key': upstreamKey },
  proxyTimeout: 30_000,
  ejectPlugins: true,
  plugins: [
    // Before httpxy writes the answer's headers from this object: no cookie or site-data header may act on the origin.
    (server) =>
      server.on('proxyRes', (proxyRes) => {
        const headers = proxyRes.headers;
        delete headers['set-cookie'];
        delete headers['clear-site-data'];
        headers['x-content-type-options'] = 'nosniff';
        headers['content-security-policy'] = 'sandbox';
      }),
    // A 502 when the upstream connection fails (the upstream closed a keep-alive connection as it was
    // reused, a run of 2026-11-28), as Arrbiter answers: with the default plugins ejected, an 'error'
    // without a listener would end the process. Registered once: no per-call work.
    (server) =>
      server.on('error', (_error, _req, res) => {
        if (typeof res.writeHead !== 'function') return res.destroy();
        if (!res.headersSent) res.writeHead(502);
        res.end();
      }),
  ],
});

createServer((req, res) => {
  const url = req.url ?? '/';
  const slugEnd = url.indexOf('/', 7);
  const query = url.indexOf('?');
  const key = req.headers['x-api-key'];
  const app = typeof key === 'string' && url.startsWith('/proxy/') ? apps.get(hash('sha256', key)) : undefined;
  if (!app || !app.enabled || slugEnd < 0 || url.slice(7, slugEnd) !== app.slug) return res.writeHead(401).end();
  const raw = url.slice(slugEnd, query < 0 ? undefined : query);
  if (!PLAIN.test(raw) || DOT_SEGMENT.test(raw)) return res.writeHead(400).end();
  const segments = raw.split('/').filter((s) => s !== '');
  const path = `/${segments.join('/')}`;
  const route = resolveRoute(segments);
  if (!route || !route.methods.has(req.method)) return res.writeHead(403).end();
  const started = performance.now();
  req.url = query < 0 ? path : path + url.slice(query);
  const headers = req.headers;
  delete headers['x-api-key'];
  for (const name of OVERRIDES) delete headers[name];
  headers.via = '1.1 arrbiter';
  headers['x-forwarded-for'] = req.socket.remoteAddress;
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-host'] = headers.host;
  res.on('close', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.now(),
      pid,
      hostname: host,
      proxy: {
        method: req.method,
        app: app.slug,
        proxyId: app.proxyId,
        path,
        route: route.route,
        outcome: 'forwarded',
      },
      status: res.statusCode,
      responseTime: Math.round((performance.now() - started) * 10) / 10,
      remoteAddress: req.socket.remoteAddress,
      msg: 'proxy request',
    });
    if (pending === '') setImmediate(flush);
    pending += `${line}\n`;
  });
  void proxy(req, res, () => res.writeHead(404).end());
}).listen(Number(port), '127.0.0.1', () => console.log(`ready ${port}`));

// As passthrough.mjs: exits normally on SIGTERM (profiles are written), and when the bench has gone.
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
