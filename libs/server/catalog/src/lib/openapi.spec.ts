import { parseOpenApi } from './openapi';

describe(parseOpenApi.name, () => {
  const operation = { get: { tags: ['Movie'] } };

  it('skips and reports a route whose template is pathological, keeping the rest of the description', () => {
    const skipped: { path: string; reason: string }[] = [];
    const routes = parseOpenApi(
      {
        openapi: '3.0.1',
        paths: {
          '/api/v3/movie/{id}': operation,
          '/api/v3/x{a}{b}{c}{d}{e}{f}{g}y': operation,
          '/api/v3/feed/{name}.ics': operation,
        },
      },
      (path, reason) => skipped.push({ path, reason }),
    );
    expect(routes.map((r) => r.path)).toEqual(['/api/v3/movie/{id}', '/api/v3/feed/{name}.ics']);
    expect(skipped).toEqual([
      {
        path: '/api/v3/x{a}{b}{c}{d}{e}{f}{g}y',
        reason: expect.stringContaining('has parameters with no literal text between them ({a}{b})'),
      },
    ]);
    // Without a reporter the route is skipped all the same.
    expect(parseOpenApi({ openapi: '3.0.1', paths: { '/{a}{b}': operation } })).toEqual([]);
  });
});
