import {
  DocumentProblems,
  parseDocumentText,
  refuseReferences,
  resolveReferences,
  serialiseDocument,
  validateDocument,
} from './config-document';

const problems = async (run: () => unknown): Promise<readonly string[]> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof DocumentProblems) return error.problems;
    throw error;
  }
  throw new Error('no problems were found');
};

describe('the declarative configuration document', () => {
  describe(parseDocumentText.name, () => {
    it('reads JSON and YAML, and refuses duplicate keys and alias bombs', async () => {
      expect(parseDocumentText('{"version": 1}', 'json')).toEqual({ version: 1 });
      expect(parseDocumentText('version: 1\napps: []\n', 'yaml')).toEqual({ version: 1, apps: [] });
      expect(await problems(() => parseDocumentText('{"version": ', 'json'))).toEqual([
        expect.stringMatching(/^the document is not valid JSON/),
      ]);
      expect(await problems(() => parseDocumentText('a: 1\na: 2\n', 'yaml'))).toEqual([
        expect.stringMatching(/^the document is not valid YAML \(Map keys must be unique/),
      ]);
      const bomb = [
        'a: &a [x, x, x, x, x, x, x, x, x]',
        ...Array.from(
          { length: 8 },
          (_, i) =>
            `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
        ),
      ].join('\n');
      expect(await problems(() => parseDocumentText(bomb, 'yaml'))).toEqual([
        expect.stringMatching(/^the document is not valid YAML \(.*alias/i),
      ]);
    });

    it.each(['__proto__', 'constructor', 'prototype'])('refuses a %s key, naming where it is', async (key) => {
      const text = `{"version": 1, "apps": [{"slug": "a", "name": "A", "proxies": [{"service": "x", "overrides": {"${key}": ["get"]}}]}]}`;
      expect(await problems(() => parseDocumentText(text, 'json'))).toEqual([
        `the document uses the reserved key "${key}" in apps[0].proxies[0].overrides`,
      ]);
      // A value that did not come from the text (CONFIG_FILE's references resolved) is checked again.
      expect(await problems(() => validateDocument(JSON.parse(text)))).toEqual([
        `the document uses the reserved key "${key}" in apps[0].proxies[0].overrides`,
      ]);
    });

    it('refuses nesting deeper than 64 levels, in JSON and in YAML', async () => {
      const deep = (depth: number) => `{"version": 1, "apps": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
      expect(await problems(() => parseDocumentText(deep(64), 'json'))).toEqual([
        expect.stringMatching(/^the document is nested deeper than 64 levels \(at apps\[0\]/),
      ]);
      expect(await problems(() => parseDocumentText(deep(64), 'yaml'))).toEqual([
        'the document is nested deeper than 64 levels',
      ]);
      expect(parseDocumentText(deep(63), 'json')).toEqual(parseDocumentText(deep(63), 'yaml'));
    });
  });

  describe(resolveReferences.name, () => {
    const references = new Map([
      ['${RADARR_KEY}', { value: 'k'.repeat(32) }],
      ['${file:/run/secrets/key}', { value: 'f'.repeat(32) }],
      ['${MISSING}', { problem: 'the environment variable MISSING is not set' }],
    ]);

    it('puts the values in, anywhere in a string, and keeps $${ as a literal ${', () => {
      expect(
        resolveReferences(
          {
            services: [{ baseUrl: 'http://radarr:7878', apiKey: '${RADARR_KEY}' }],
            note: 'a $${literal} and ${file:/run/secrets/key}!',
          },
          references,
        ),
      ).toEqual({
        services: [{ baseUrl: 'http://radarr:7878', apiKey: 'k'.repeat(32) }],
        note: `a \${literal} and ${'f'.repeat(32)}!`,
      });
    });

    it('names the path and the reference of what cannot be resolved, never a value', async () => {
      const found = await problems(() =>
        resolveReferences(
          { services: [{ apiKey: '${MISSING}' }, { apiKey: '${RADARR_KEY}' }], x: '${NOT_READ}' },
          references,
        ),
      );
      expect(found).toEqual([
        'services[0].apiKey: ${MISSING} cannot be resolved: the environment variable MISSING is not set',
        'x: ${NOT_READ} cannot be resolved: unknown reference',
      ]);
      expect(found.join('\n')).not.toContain('k'.repeat(32));
    });
  });

  it('refuses references in a document sent over the admin API', async () => {
    expect(await problems(() => refuseReferences({ apps: [{ proxies: [{ key: '${file:/etc/shadow}' }] }] }))).toEqual([
      'apps[0].proxies[0].key: ${file:/etc/shadow} is a secret reference; they are resolved only in CONFIG_FILE and `main.js import`, so send the value itself',
    ]);
    expect(() => refuseReferences({ note: 'a $${literal}' })).not.toThrow();
  });

  describe(validateDocument.name, () => {
    it('normalises base URLs and maps, and names every problem by its path', async () => {
      const document = await validateDocument({
        version: 1,
        services: [{ baseUrl: 'http://radarr:7878/' }],
        templates: [{ name: 'Read', blocks: { radarr: { '/api/v3/movie': ['head', 'get'] } } }],
        apps: [
          {
            slug: 'a',
            name: 'A',
            proxies: [{ service: 'Radarr', overrides: { '/b': ['get'], '/a': ['post', 'get'] } }],
          },
        ],
      });
      expect(document.services?.[0].baseUrl).toBe('http://radarr:7878');
      expect(document.templates?.[0].blocks).toEqual({ radarr: { '/api/v3/movie': ['get', 'head'] } });
      expect(Object.entries(document.apps?.[0].proxies?.[0].overrides ?? {})).toEqual([
        ['/a', ['get', 'post']],
        ['/b', ['get']],
      ]);

      expect(
        await problems(() =>
          validateDocument({
            version: 1,
            prune: 'yes',
            services: [{ baseUrl: 'ftp://x' }],
            templates: [
              { name: 'T', blocks: { 'Not A Type': {} } },
              { name: 't', blocks: {} },
            ],
            apps: [{ slug: 'a', name: 'A', active: null, proxies: [{ service: 'x', key: 'A'.repeat(32) }] }],
          }),
        ),
      ).toEqual([
        'prune must be a boolean value',
        'apps[0].active must be a boolean value',
        'apps[0].proxies[0].key must be 32 lower-case hexadecimal characters',
      ]);
      expect(
        await problems(() =>
          validateDocument({
            version: 1,
            services: [{ baseUrl: 'ftp://x' }],
            templates: [
              { name: 'T', blocks: { 'Not A Type': {} } },
              { name: 't', blocks: {} },
            ],
            apps: [
              { slug: 'a', name: 'A', proxies: [{ service: 'x', key: 'a'.repeat(32) }] },
              { slug: 'b', name: 'B', proxies: [{ service: 'x', key: 'a'.repeat(32) }] },
            ],
          }),
        ),
      ).toEqual([
        'services[0].baseUrl must use http or https',
        'templates[0].blocks: "Not A Type" is not a service type such as radarr',
        'templates[1].name: "t" is already listed at templates[0].name',
        'apps[1].proxies[0].key: this key is already listed at apps[0].proxies[0].key',
      ]);
    });
  });

  it('writes JSON and YAML that read back as the same document', () => {
    const document = {
      version: 1 as const,
      apps: [{ slug: 'a', name: 'A', proxies: [{ service: 'x', overrides: { '/api/v3/movie/{id}': ['get'] } }] }],
    };
    expect(parseDocumentText(serialiseDocument(document, 'json'), 'json')).toEqual(document);
    expect(parseDocumentText(serialiseDocument(document, 'yaml'), 'yaml')).toEqual(document);
  });
});
