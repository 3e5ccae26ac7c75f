// Benchmark child process: a fake Servarr on a given port (`upstream.ts <port> <apiKey>`).
import { FakeServarr } from '@arrbiter/tools/fake-servarr';

const [port, apiKey] = process.argv.slice(2);
FakeServarr.start({ type: 'radarr', port: Number(port), apiKey, record: false }).then(
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
