// Benchmark child process: a fake Servarr on a given port (`upstream.ts <port> <apiKey>`). Its resources
// (`GET /api/v3/movie`, `…/movie/{id}`) answer 1 KB of JSON, the same bytes whoever asks: the performance
// rule's "allowed mix, 1 KB JSON", and the same upstream work for the passthrough and for Arrbiter.
import { FakeServarr } from '@arrbiter/tools/fake-servarr';

const [port, apiKey] = process.argv.slice(2);
FakeServarr.start({ type: 'radarr', port: Number(port), apiKey, record: false, resourceBytes: 1024 }).then(
  (fake) => console.log(`ready ${fake.url}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
// Exits normally, so that BENCH_NODE_OPTIONS=--cpu-prof writes its profile; also when the bench that
// started it has gone (its IPC channel closed), so that an interrupted bench leaves nothing running.
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
