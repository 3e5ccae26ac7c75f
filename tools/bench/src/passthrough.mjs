// Benchmark child process: a bare http-proxy-middleware passthrough with no checks at all — the
// ceiling a Node.js proxy can reach on this machine (`passthrough.mjs <port> <upstream origin>`).
// Plain JavaScript run by node itself, as Arrbiter's build is: under ts-node the process also loads
// Node's `repl`, hence `domain`, whose hooks on every EventEmitter and nextTick cost the passthrough
// about 10 µs of CPU per call (a profile of 2026-11-24) and flattered Arrbiter's ratio.
import { Agent, createServer } from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';

const [port, target] = process.argv.slice(2);
const proxy = createProxyMiddleware({
  target,
  changeOrigin: true,
  agent: new Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' }),
});
createServer((req, res) => void proxy(req, res, () => res.writeHead(404).end())).listen(Number(port), '127.0.0.1', () =>
  console.log(`ready ${port}`),
);
// Exits normally, so that BENCH_NODE_OPTIONS=--cpu-prof writes its profile; also when the bench that
// started it has gone (its IPC channel closed), so that an interrupted bench leaves nothing running.
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
