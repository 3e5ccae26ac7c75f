import { describeSummary, summarize } from './revision-summary';

describe('revision summaries', () => {
  it('lists added and removed effective grants and the active change in one line', () => {
    expect(
      summarize('warning-grant', {
        effectiveBefore: { '/api/v3/movie': ['get'] },
        effectiveAfter: { '/api/v3/movie': ['get', 'post'], '/api/v3/calendar': ['get'] },
        activeBefore: true,
        activeAfter: true,
      }),
    ).toEqual({
      text: 'Granted from warnings: 2 grants added',
      added: [
        { path: '/api/v3/calendar', method: 'get' },
        { path: '/api/v3/movie', method: 'post' },
      ],
      removed: [],
    });
    expect(
      summarize('restore', { effectiveBefore: {}, effectiveAfter: {}, activeBefore: true, activeAfter: false }).text,
    ).toBe('Revision restored: deactivated');
  });

  it('names at most five added and five removed grants in the recent change line', () => {
    const grants = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `/api/v3/r${i}`, method: 'get' as const }));
    expect(describeSummary({ text: 'Configuration saved: 7 grants added', added: grants(7), removed: [] })).toBe(
      'Configuration saved: 7 grants added (added GET /api/v3/r0, GET /api/v3/r1, GET /api/v3/r2, GET /api/v3/r3, GET /api/v3/r4 and 2 more)',
    );
    expect(describeSummary({ text: 'Revision restored: 1 grant removed', added: [], removed: grants(1) })).toBe(
      'Revision restored: 1 grant removed (removed GET /api/v3/r0)',
    );
    expect(describeSummary({ text: 'Revision restored: deactivated', added: [], removed: [] })).toBe(
      'Revision restored: deactivated',
    );
  });
});
