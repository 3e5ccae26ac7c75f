// Benchmark child process: a fake Servarr on a given port (`upstream.ts <port> <apiKey>`).
import { FakeServarr } from '@arrbiter/tools/fake-servarr';

const [port, apiKey] = process.argv.slice(2);
FakeServarr.start({ type: 'radarr', port: Number(port), apiKey }).then(
  (fake) => console.log(`ready ${fake.url}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
