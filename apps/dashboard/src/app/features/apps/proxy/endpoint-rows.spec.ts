import type { EndpointsResponse } from '@arrbiter/contracts';
import { AllowlistDraft } from './allowlist-draft';
import { endpointRows, groupCount, groupRows, OTHER_PATHS, pathCount } from './endpoint-rows';

describe(endpointRows.name, () => {
  const catalog: EndpointsResponse = {
    serviceType: 'radarr',
    templateId: null,
    tags: ['Movie'],
    items: [
      {
        path: '/api/v3/movie/{id}',
        tags: ['Movie'],
        inCatalog: true,
        sensitive: false,
        override: ['put'],
        methods: [
          {
            method: 'get',
            template: true,
            override: null,
            effective: true,
            risk: { sensitive: false, destructive: false, purpose: 'read library', reason: 'Reads.' },
          },
        ],
      },
    ],
  };

  it('shows one row per route, whatever spelling the template, the overrides or the admin use', () => {
    const draft = AllowlistDraft.from({ '/api/v3/movie/{id}': ['get'] }, { '/api/v3/Movie/{movieId}': ['put'] });
    const rows = endpointRows(catalog, draft, ['/API/v3/movie/{x}', '/api/v3/custom']);
    expect(rows.map((r) => [r.path, r.tag, r.methods])).toEqual([
      ['/api/v3/movie/{id}', 'Movie', ['get', 'put']],
      ['/api/v3/custom', OTHER_PATHS, ['get', 'post', 'put', 'patch', 'delete', 'head']],
    ]);
  });
});

describe(groupRows.name, () => {
  const row = (path: string, tag: string) => ({
    path,
    tag,
    inCatalog: true,
    sensitive: false,
    methods: ['get'],
    summaries: {},
    risks: {},
  });
  const rows = [
    row('/api/v3/movie', 'Movie'),
    row('/api/v3/movie/{id}', 'Movie'),
    row('/api/v3/movie/lookup', 'Movie'),
    row('/api/v3/movie/editor', 'Movie'),
    row('/api/v3/calendar', 'Calendar'),
    row('/api/v3/tag', 'Tag'),
    row('/api/v3/tag/{id}', 'Tag'),
  ];

  it('counts the granted routes of each group and lists them first', () => {
    const draft = AllowlistDraft.from({ '/api/v3/movie/lookup': ['get'], '/api/v3/calendar': ['get'] }, {}).toggle(
      '/api/v3/movie/{id}',
      'get',
    );
    const groups = groupRows(rows, draft, '', '', 'all');
    expect(groups.map((g) => [g.tag, g.granted, g.rows.map((r) => r.path), groupCount(g)])).toEqual([
      ['Calendar', 1, ['/api/v3/calendar'], '1 path, granted'],
      [
        'Movie',
        2,
        ['/api/v3/movie/{id}', '/api/v3/movie/lookup', '/api/v3/movie', '/api/v3/movie/editor'],
        '2 of 4 granted',
      ],
      ['Tag', 0, ['/api/v3/tag', '/api/v3/tag/{id}'], '0 of 2 granted'],
    ]);
  });

  it('says "1 path" and "2 paths"', () => {
    expect([pathCount(0), pathCount(1), pathCount(2)]).toEqual(['0 paths', '1 path', '2 paths']);
    const draft = AllowlistDraft.from({}, {});
    expect(groupCount(groupRows([rows[4]], draft, '', '', 'all')[0])).toBe('1 path, not granted');
  });
});
