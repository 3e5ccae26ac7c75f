import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTemplateFile, readTemplateDirectory, TEMPLATE_LIMITS } from './template-files';

describe('template files', () => {
  let root: string;
  const write = (file: string, content: string) => {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), content);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'arrbiter-templates-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('groups the blocks of one template name across service types, normalised', async () => {
    write('radarr/homepage.json', JSON.stringify({ '/api/v3/movie': ['get'], '/api/v3/calendar': ['get', 'get'] }));
    write('sonarr/homepage.json', JSON.stringify({ '/api/v3/series': ['post', 'get'] }));
    write('sonarr/lunasea.json', '{}');
    const { templates, problems } = await readTemplateDirectory(root);
    expect(problems).toEqual([]);
    expect(Object.fromEntries(templates)).toEqual({
      homepage: {
        radarr: { '/api/v3/calendar': ['get'], '/api/v3/movie': ['get'] },
        sonarr: { '/api/v3/series': ['get', 'post'] },
      },
      lunasea: { sonarr: {} },
    });
  });

  it('reports and skips bad files, unknown service types and oversized files, keeping the rest', async () => {
    write('radarr/good.json', JSON.stringify({ '/api/v3/movie': ['get'] }));
    write('radarr/broken.json', '{ "/api/v3/movie": [');
    write('radarr/list.json', '["get"]');
    write('radarr/methods.json', JSON.stringify({ '/api/v3/movie': ['GET', 'fetch'] }));
    write('radarr/path.json', JSON.stringify({ 'api/v3/movie?x=1': ['get'] }));
    write(
      'radarr/huge.json',
      JSON.stringify({ '/api/v3/movie': ['get'], pad: 'x'.repeat(TEMPLATE_LIMITS.maxFileBytes) }),
    );
    write('radarr/README.md', '# not a template');
    write('plex/anything.json', '{}');
    symlinkSync('/etc/passwd', join(root, 'radarr', 'link.json'));
    const { templates, problems } = await readTemplateDirectory(root);
    expect([...templates.keys()]).toEqual(['good']);
    const reasons = Object.fromEntries(problems.map((p) => [p.file, p.reason]));
    expect(Object.keys(reasons).sort()).toEqual([
      'plex/',
      'radarr/broken.json',
      'radarr/huge.json',
      'radarr/link.json',
      'radarr/list.json',
      'radarr/methods.json',
      'radarr/path.json',
    ]);
    expect(reasons['radarr/broken.json']).toMatch(/^not valid JSON/);
    expect(reasons['radarr/methods.json']).toContain('"GET" is not a lower-case HTTP method');
    expect(reasons['radarr/path.json']).toContain('is not an API path');
    expect(reasons['plex/']).toContain('unknown service type');
    expect(reasons['radarr/link.json']).toBe('not a regular file');
  });

  it('parses one file on its own', () => {
    expect(parseTemplateFile('{"/api/v3/movie/{id}":["put","get"]}')).toEqual({
      block: { '/api/v3/movie/{id}': ['get', 'put'] },
    });
    expect(parseTemplateFile('null')).toEqual({
      reason: 'not a JSON object mapping API paths to arrays of HTTP methods',
    });
  });
});
