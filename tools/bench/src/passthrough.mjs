// Benchmark child process: a bare http-proxy-middleware passthrough with no checks at all — the
// ceiling a Node.js proxy can reach on this machine (`passthrough.mjs <port> <upstream origin> [µs]`).
// Plain JavaScript run by node itself, as Arrbiter's build is: under ts-node the process also loads
// Node's `repl`, hence `domain`, whose hooks on every EventEmitter and nextTick cost the passthrough
// about 10 µs of CPU per call (a profile of 2026-11-24) and flattered Arrbiter's ratio.
//
// With a third argument (the calibration row, main.ts's CALIBRATION_TARGET), the same passthrough spends
// that many microseconds of CPU on each call before forwarding it: what a known amount of per-call work
// costs in req/s and in CPU per call at the bench's load, whoever does it.
import { Agent, createServer } from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';

const [port, target, busyMicros] = process.argv.slice(2);
const busyMs = Number(busyMicros ?? 0) / 1000;
const proxy = createProxyMiddleware({
  target,
  changeOrigin: true,
  agent: new Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' }),
});
createServer((req, res) => {
  if (busyMs > 0) {
    const until = performance.now() + busyMs;
    while (performance.now() < until);
  }
  void proxy(req, res, () => res.writeHead(404).end());
}).listen(Number(port), '127.0.0.1', () => console.log(`ready ${port}`));
// Exits normally, so that BENCH_NODE_OPTIONS=--cpu-prof writes its profile; also when the bench that
// started it has gone (its IPC channel closed), so that an interrupted bench leaves nothing running.
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
