import { AllowlistDraft, inEditorOrder, sortMethods } from './allowlist-draft';
import { diffGrants, effectiveAllowlist, overrideProblems } from './allowlist';

describe(AllowlistDraft.name, () => {
  const template = { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get', 'put'], '/api/v3/calendar': ['get'] };
  // Saved the way the API, an import or a config file may write it: same routes, other spelling.
  const saved = { '/api/v3/Movie/{movieId}': ['delete', 'get'], '/API/v3/calendar': [] };

  it('reads a route through any spelling of its path, as the server does', () => {
    const draft = AllowlistDraft.from(template, saved);
    expect(draft.effectiveAllowlist()).toEqual(effectiveAllowlist(template, saved));
    expect(draft.effectiveAllowlist()).toEqual({
      '/api/v3/movie': ['get'],
      '/api/v3/Movie/{movieId}': ['delete', 'get'],
    });
    for (const path of ['/api/v3/movie/{id}', '/api/v3/Movie/{movieId}', '/API/V3/MOVIE/{x}']) {
      expect({ path, effective: draft.effective(path) }).toEqual({ path, effective: ['get', 'delete'] });
      expect(draft.overridePath(path)).toBe('/api/v3/Movie/{movieId}');
      expect(draft.methodState(path, 'put')).toMatchObject({ granted: false, template: true, source: 'override' });
    }
    expect(draft.isDenied('/api/v3/calendar')).toBe(true);
    expect(draft.methodState('/api/v3/calendar', 'get').source).toBe('denied');
    expect(draft.paths()).toEqual(['/api/v3/movie', '/api/v3/movie/{id}', '/api/v3/calendar']);
    expect(draft.namedMethods('/api/v3/movie/{id}')).toEqual(['get', 'put', 'delete']);
    expect(draft.changes()).toEqual({ added: [], removed: [] });
  });

  it('edits the override the route already has, so a save never names one route twice', () => {
    const draft = AllowlistDraft.from(template, saved).toggle('/api/v3/movie/{id}', 'put').deny('/api/v3/CALENDAR');
    expect(draft.overrides).toEqual({ '/api/v3/Movie/{movieId}': ['get', 'put', 'delete'], '/API/v3/calendar': [] });
    expect(overrideProblems(draft.overrides)).toEqual([]);
    expect(draft.changes()).toEqual({ added: [{ path: '/api/v3/Movie/{movieId}', method: 'put' }], removed: [] });
    expect(draft.isChanged('/api/v3/movie/{id}')).toBe(true);
    expect(draft.isChanged('/api/v3/calendar')).toBe(false);

    const reset = draft.reset('/api/v3/movie/{id}');
    expect(reset.overrides).toEqual({ '/API/v3/calendar': [] });
    expect(reset.effective('/api/v3/Movie/{movieId}')).toEqual(['get', 'put']);
    // Back on the template's path: the removed and added grants are the route's, not its spellings'.
    expect(reset.changes()).toEqual({
      added: [{ path: '/api/v3/movie/{id}', method: 'put' }],
      removed: [{ path: '/api/v3/Movie/{movieId}', method: 'delete' }],
    });
    expect(reset.discard().overrides).toEqual(saved);
  });

  it('counts what the server counts: the revision summary of the same save', () => {
    const draft = AllowlistDraft.from(template, saved)
      .set('/api/v3/queue/{id}', 'delete', true)
      .reset('/api/v3/calendar');
    const server = diffGrants(effectiveAllowlist(template, saved), effectiveAllowlist(template, draft.overrides));
    expect(draft.changes()).toEqual({ added: inEditorOrder(server.added), removed: inEditorOrder(server.removed) });
    expect(draft.changes()).toEqual({
      added: [
        { path: '/api/v3/calendar', method: 'get' },
        { path: '/api/v3/queue/{id}', method: 'delete' },
      ],
      removed: [],
    });
  });
});

describe(inEditorOrder.name, () => {
  it('orders grants by path, then by method as the editor shows them', () => {
    expect(
      inEditorOrder([
        { path: '/b', method: 'get' },
        { path: '/a', method: 'delete' },
        { path: '/a', method: 'post' },
        { path: '/a', method: 'get' },
      ]),
    ).toEqual([
      { path: '/a', method: 'get' },
      { path: '/a', method: 'post' },
      { path: '/a', method: 'delete' },
      { path: '/b', method: 'get' },
    ]);
    expect(sortMethods(['OPTIONS', 'trace', 'get'])).toEqual(['get', 'options', 'trace']);
  });
});
