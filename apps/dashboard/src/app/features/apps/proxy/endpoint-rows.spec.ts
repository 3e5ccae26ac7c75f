import type { EndpointsResponse } from '@arrbiter/contracts';
import { AllowlistDraft } from './allowlist-draft';
import { endpointRows, OTHER_PATHS } from './endpoint-rows';

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
        methods: [{ method: 'get', template: true, override: null, effective: true }],
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
