// Benchmark child process: a bare http-proxy-middleware passthrough with no checks at all — the
// ceiling a Node.js proxy can reach on this machine (`passthrough.ts <port> <upstream origin>`).
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
