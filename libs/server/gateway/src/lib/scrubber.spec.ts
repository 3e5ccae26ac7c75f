import { Readable } from 'node:stream';
import { Scrubber, ScrubTargets } from './scrubber';

const UPSTREAM_KEY = '0123456789abcdef0123456789abcdef';
const CALLER_KEY = 'fedcba9876543210fedcba9876543210';

const prowlarr: ScrubTargets = {
  upstreamKey: UPSTREAM_KEY,
  callerKey: CALLER_KEY,
  origin: 'http://prowlarr:9696',
  basePath: '/prowlarr',
  proxyUrl: 'https://arr.example.com/proxy/overseerr',
};

/** A Prowlarr search result with the key and base URL in every form an upstream writes them. */
const body = JSON.stringify({
  releases: [
    {
      downloadUrl: `http://prowlarr:9696/prowlarr/12/download?apikey=${UPSTREAM_KEY}&link=abc`,
      nested: { link: `http://prowlarr:9696/prowlarr/api/v1/indexer/12`, deeper: [{ key: UPSTREAM_KEY }] },
    },
  ],
  escaped: 'ESCAPED',
  encoded: `redirect=${encodeURIComponent('http://prowlarr:9696/prowlarr/x')}`,
  lower: 'http%3a%2f%2fprowlarr%3a9696%2fprowlarr%2fx',
  upper: UPSTREAM_KEY.toUpperCase(),
  // As a JSON encoder that escapes slashes writes it (.NET's does, for some settings).
}).replace('"ESCAPED"', '"http:\\/\\/prowlarr:9696\\/prowlarr\\/12\\/download"');

async function streamed(scrubber: Scrubber, chunks: Buffer[]): Promise<string> {
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks).pipe(scrubber.stream())) out.push(chunk as Buffer);
  return Buffer.concat(out).toString();
}

describe('Scrubber', () => {
  const scrubber = new Scrubber(prowlarr);

  it('replaces the key and the base URL in nested fields, escaped and percent-encoded forms', () => {
    const { body: out, changed } = scrubber.whole(Buffer.from(body));
    const text = out.toString();
    expect(changed).toBe(true);
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).not.toContain(UPSTREAM_KEY.toUpperCase());
    expect(text).not.toMatch(/prowlarr:9696|prowlarr%3a9696/i);
    const parsed = JSON.parse(text);
    expect(parsed.releases[0].downloadUrl).toBe(
      `https://arr.example.com/proxy/overseerr/12/download?apikey=${CALLER_KEY}&link=abc`,
    );
    expect(parsed.releases[0].nested.link).toBe('https://arr.example.com/proxy/overseerr/api/v1/indexer/12');
    expect(parsed.releases[0].nested.deeper[0].key).toBe(CALLER_KEY);
    expect(parsed.escaped).toBe('https://arr.example.com/proxy/overseerr/12/download');
    expect(decodeURIComponent(parsed.encoded)).toBe('redirect=https://arr.example.com/proxy/overseerr/x');
    expect(decodeURIComponent(parsed.lower)).toBe('https://arr.example.com/proxy/overseerr/x');
    expect(parsed.upper).toBe(CALLER_KEY.toUpperCase());
  });

  it('hands back the same buffer when there is nothing to replace', () => {
    const clean = Buffer.from('{"title":"Dune","year":2021}');
    const result = scrubber.whole(clean);
    expect(result.changed).toBe(false);
    expect(result.body).toBe(clean);
  });

  it('finds matches split across chunks at every position', async () => {
    const whole = scrubber.whole(Buffer.from(body)).body.toString();
    const bytes = Buffer.from(body);
    for (let cut = 1; cut < bytes.length; cut += 1) {
      expect(await streamed(scrubber, [bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(whole);
    }
    // One byte at a time.
    const single = [...bytes].map((byte) => Buffer.from([byte]));
    expect(await streamed(scrubber, single)).toBe(whole);
  });

  describe('an upstream on a default port, without a URL base', () => {
    const plain = new Scrubber({ ...prowlarr, origin: 'http://radarr', basePath: '' });

    it('replaces the host with and without the port, not a longer host or another port', () => {
      const text = plain
        .whole(
          Buffer.from(
            'a http://radarr/api b http://radarr:80/api c http://radarr.lan/api d http://radarr:8080/api e http://radarr',
          ),
        )
        .body.toString();
      expect(text).toBe(
        'a https://arr.example.com/proxy/overseerr/api b https://arr.example.com/proxy/overseerr/api c http://radarr.lan/api d http://radarr:8080/api e https://arr.example.com/proxy/overseerr',
      );
    });

    it('decides a host at the end of a chunk by the next chunk', async () => {
      expect(await streamed(plain, [Buffer.from('see http://radarr'), Buffer.from('.lan/x')])).toBe(
        'see http://radarr.lan/x',
      );
      expect(await streamed(plain, [Buffer.from('see http://radarr'), Buffer.from(':80/x')])).toBe(
        'see https://arr.example.com/proxy/overseerr/x',
      );
      expect(await streamed(plain, [Buffer.from('see http://radarr'), Buffer.from('/x')])).toBe(
        'see https://arr.example.com/proxy/overseerr/x',
      );
    });
  });

  it('rewrites header values', () => {
    expect(scrubber.text('http://prowlarr:9696/prowlarr/login?returnUrl=%2F')).toBe(
      'https://arr.example.com/proxy/overseerr/login?returnUrl=%2F',
    );
    expect(scrubber.text('<http://other/x>; rel="next"')).toBe('<http://other/x>; rel="next"');
  });
});

describe('Scrubber streams', () => {
  it('holds back nothing that cannot begin a match (a stream of events is not delayed)', async () => {
    const scrubber = new Scrubber(prowlarr);
    const transform = scrubber.stream();
    const seen: string[] = [];
    transform.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    transform.write(Buffer.from('data: {"a":1}\n\n'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['data: {"a":1}\n\n']);
    transform.write(Buffer.from('data: http://prow'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['data: {"a":1}\n\n', 'data: ']);
    transform.end(Buffer.from('larr:9696/prowlarr/x\n\n'));
    await new Promise((resolve) => transform.on('end', resolve));
    expect(seen.join('')).toBe('data: {"a":1}\n\ndata: https://arr.example.com/proxy/overseerr/x\n\n');
  });
});
