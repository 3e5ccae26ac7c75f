// A fake Servarr for local development:
//   npm run fake-servarr -- [--type radarr] [--port 7878] [--key <32 hex>] [--url-base /radarr]
import { parseArgs } from 'node:util';
import { FakeServarr } from './lib/fake-servarr';

const { values } = parseArgs({
  options: {
    type: { type: 'string', default: 'radarr' },
    port: { type: 'string', default: '7878' },
    key: { type: 'string' },
    'url-base': { type: 'string', default: '' },
    current: { type: 'string', default: 'v3' },
  },
});

FakeServarr.start({
  type: values.type,
  port: Number(values.port),
  apiKey: values.key,
  urlBase: values['url-base'],
  current: values.current,
  // A long-running stand-in: nothing reads the recorded requests.
  record: false,
}).then(
  (fake) => {
    console.log(`Fake ${fake.appName} on ${fake.url} (API key ${fake.options.apiKey})`);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
