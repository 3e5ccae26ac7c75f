import { diffGrants, effectiveAllowlist } from '@arrbiter/shared/allowlist-rules';
import { AllowlistDraft, customPathProblem, sortMethods } from './allowlist-draft';

describe(AllowlistDraft.name, () => {
  const template = { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get', 'put'], '/api/v3/system/status': ['get'] };

  it('inherits the template where there is no override, and an override replaces the whole list', () => {
    const draft = AllowlistDraft.from(template, { '/api/v3/movie/{id}': ['delete'] });
    expect(draft.effective('/api/v3/movie')).toEqual(['get']);
    expect(draft.effective('/api/v3/movie/{id}')).toEqual(['delete']);
    expect(draft.methodState('/api/v3/movie', 'get')).toMatchObject({ granted: true, source: 'template' });
    expect(draft.methodState('/api/v3/movie/{id}', 'get')).toMatchObject({
      granted: false,
      template: true,
      source: 'override',
    });
    expect(draft.dirty).toBe(false);
    expect(draft.changes()).toEqual({ added: [], removed: [] });
  });

  it('treats an empty override as a deny of the whole path', () => {
    const draft = AllowlistDraft.from(template, { '/api/v3/movie': [] });
    expect(draft.effective('/api/v3/movie')).toEqual([]);
    expect(draft.isDenied('/api/v3/movie')).toBe(true);
    expect(draft.methodState('/api/v3/movie', 'get').source).toBe('denied');
    expect(effectiveAllowlist(template, { '/api/v3/movie': [] })).not.toHaveProperty('/api/v3/movie');

    const denied = AllowlistDraft.from(template, {}).deny('/api/v3/movie/{id}');
    expect(denied.overrides).toEqual({ '/api/v3/movie/{id}': [] });
    expect(denied.changes()).toEqual({
      added: [],
      removed: [
        { path: '/api/v3/movie/{id}', method: 'get' },
        { path: '/api/v3/movie/{id}', method: 'put' },
      ],
    });
  });

  it('starts an override from the current effective list when a method is toggled', () => {
    const draft = AllowlistDraft.from(template, {}).toggle('/api/v3/movie/{id}', 'delete');
    expect(draft.overrides).toEqual({ '/api/v3/movie/{id}': ['get', 'put', 'delete'] });
    expect(draft.dirty).toBe(true);
    expect(draft.changes()).toEqual({ added: [{ path: '/api/v3/movie/{id}', method: 'delete' }], removed: [] });
    expect(draft.methodState('/api/v3/movie/{id}', 'delete')).toMatchObject({ granted: true, changed: true });
    expect(draft.isChanged('/api/v3/movie/{id}')).toBe(true);
    expect(draft.isChanged('/api/v3/movie')).toBe(false);

    const revoked = draft.toggle('/api/v3/movie/{id}', 'get');
    expect(revoked.overrides['/api/v3/movie/{id}']).toEqual(['put', 'delete']);
    expect(revoked.changes()).toEqual({
      added: [{ path: '/api/v3/movie/{id}', method: 'delete' }],
      removed: [{ path: '/api/v3/movie/{id}', method: 'get' }],
    });
    // Revoking the last method leaves an empty override: a deny, not an inherit.
    const emptied = AllowlistDraft.from(template, {}).toggle('/api/v3/movie', 'get');
    expect(emptied.overrides).toEqual({ '/api/v3/movie': [] });
    expect(emptied.isDenied('/api/v3/movie')).toBe(true);
  });

  it('resets a path to the template by removing its override', () => {
    const saved = { '/api/v3/movie': [], '/api/v3/queue': ['get'] };
    const draft = AllowlistDraft.from(template, saved).reset('/api/v3/movie');
    expect(draft.overrides).toEqual({ '/api/v3/queue': ['get'] });
    expect(draft.hasOverride('/api/v3/movie')).toBe(false);
    expect(draft.effective('/api/v3/movie')).toEqual(['get']);
    expect(draft.changes()).toEqual({ added: [{ path: '/api/v3/movie', method: 'get' }], removed: [] });
    expect(draft.reset('/api/v3/not-overridden')).toBe(draft);
    // Resetting everything returns exactly to the template.
    const clean = draft.reset('/api/v3/queue');
    expect(clean.effectiveAllowlist()).toEqual(template);
    expect(clean.discard().overrides).toEqual(saved);
  });

  it('counts nothing when a draft ends up equal to the saved effective grants', () => {
    const draft = AllowlistDraft.from(template, {}).toggle('/api/v3/movie', 'post').toggle('/api/v3/movie', 'post');
    // The override stays (it would be saved) but grants nothing new.
    expect(draft.dirty).toBe(true);
    expect(draft.changes()).toEqual({ added: [], removed: [] });
    expect(draft.reset('/api/v3/movie').dirty).toBe(false);
  });

  it('edits custom paths outside the template and the catalog', () => {
    const draft = AllowlistDraft.from({}, {}).set('/api/v3/custom/{id}', 'get', true);
    expect(draft.overrides).toEqual({ '/api/v3/custom/{id}': ['get'] });
    expect(draft.paths()).toEqual(['/api/v3/custom/{id}']);
    expect(draft.methodState('/api/v3/custom/{id}', 'get')).toMatchObject({ template: false, source: 'override' });
    expect(draft.changes().added).toEqual([{ path: '/api/v3/custom/{id}', method: 'get' }]);
    expect(customPathProblem('api/v3/x')).toMatch(/starts with/);
    expect(customPathProblem('/api/v3/x?y=1')).toMatch(/query/);
    expect(customPathProblem('/api/v3/x/')).toMatch(/trailing/);
    expect(customPathProblem('/api/v3/x/{id}')).toBeNull();
  });

  it('treats paths that differ only in case or parameter names as one route, as the server does', () => {
    const draft = AllowlistDraft.from(template, { '/api/v3/Movie/{movieId}': ['get', 'put'] });
    expect(draft.changes()).toEqual({ added: [], removed: [] });
    expect(draft.effectiveAllowlist()).toEqual({
      '/api/v3/movie': ['get'],
      '/api/v3/Movie/{movieId}': ['get', 'put'],
      '/api/v3/system/status': ['get'],
    });
    const toggled = draft.toggle('/api/v3/movie/{id}', 'delete');
    expect(toggled.overrides).toEqual({ '/api/v3/Movie/{movieId}': ['get', 'put', 'delete'] });
    expect(toggled.changes()).toEqual({ added: [{ path: '/api/v3/Movie/{movieId}', method: 'delete' }], removed: [] });
  });

  it('refuses custom paths the server would refuse', () => {
    expect(customPathProblem('/api/v3/x/{a}{b}')).toMatch(/no literal text between them/);
    expect(customPathProblem('/api//x')).toMatch(/no empty, \. or \.\. segment/);
    expect(customPathProblem('/api/v3/../x')).toMatch(/no empty, \. or \.\. segment/);
    expect(customPathProblem('/api/v3/feed/{name}.ics')).toBeNull();
  });

  it('orders methods and compares allowlists grant by grant', () => {
    expect(sortMethods(['delete', 'GET', 'trace', 'post', 'get'])).toEqual(['get', 'post', 'delete', 'trace']);
    expect(diffGrants({ '/a': ['get', 'post'] }, { '/a': ['get'], '/b': ['get'] })).toEqual({
      added: [{ path: '/b', method: 'get' }],
      removed: [{ path: '/a', method: 'post' }],
    });
  });
});
