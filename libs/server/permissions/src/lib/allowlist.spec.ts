import { BadRequestException } from '@nestjs/common';
import {
  allowlistOf,
  checkedOverrides,
  normaliseOverrides,
  overridesWithChanges,
  overridesWithGrants,
  restoreDiff,
} from './allowlist';
import { learningDeadlineProblem, MAX_LEARNING_MS } from './learning';

const TEMPLATE = { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'] };

describe('allowlist semantics', () => {
  it('stores equal configurations as equal JSON: paths and methods sorted, methods once', () => {
    expect(JSON.stringify(normaliseOverrides({ '/b': ['post', 'get', 'post'], '/a': [] }))).toBe(
      JSON.stringify({ '/a': [], '/b': ['get', 'post'] }),
    );
  });

  it('refuses overrides with an invalid path or method, naming every problem, and normalises valid ones', () => {
    expect(checkedOverrides({ '/api/v3/movie': ['post', 'get'] })).toEqual({ '/api/v3/movie': ['get', 'post'] });
    expect(() => checkedOverrides({ 'no-slash': ['get'] })).toThrow(BadRequestException);
  });

  it('computes the effective allowlist as overrides over the template block', () => {
    expect(allowlistOf(TEMPLATE, { '/api/v3/movie': [], '/api/v3/calendar': ['get'] })).toEqual({
      template: TEMPLATE,
      overrides: { '/api/v3/movie': [], '/api/v3/calendar': ['get'] },
      effective: { '/api/v3/movie/{id}': ['get'], '/api/v3/calendar': ['get'] },
    });
  });

  it('grants and revokes through overrides: a revoked template grant is an override that leaves the method out', () => {
    const overrides = overridesWithChanges(
      TEMPLATE,
      { '/signalr/messages': ['get'] },
      [{ path: '/api/v3/movie/{id}', method: 'put' }],
      [
        { path: '/api/v3/movie', method: 'get' },
        { path: '/signalr/messages', method: 'get' },
      ],
    );
    expect(overrides).toEqual({ '/api/v3/movie': [], '/api/v3/movie/{id}': ['get', 'put'] });
    expect(allowlistOf(TEMPLATE, overrides).effective).toEqual({ '/api/v3/movie/{id}': ['get', 'put'] });
  });

  it('adds grants on top of the effective allowlist without losing what the template grants on that path', () => {
    const overrides = overridesWithGrants(TEMPLATE, {}, [{ path: '/api/v3/movie', method: 'post' }]);
    expect(overrides).toEqual({ '/api/v3/movie': ['get', 'post'] });
    expect(allowlistOf(TEMPLATE, overrides).effective['/api/v3/movie']).toEqual(['get', 'post']);
  });

  it('tells what restoring a revision over the current template would add and remove', () => {
    expect(
      restoreDiff(TEMPLATE, { overrides: { '/api/v3/movie': [] }, active: false }, { '/api/v3/tag': ['get'] }),
    ).toEqual({
      current: { overrides: { '/api/v3/movie': [] }, active: false, effective: { '/api/v3/movie/{id}': ['get'] } },
      restored: { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'], '/api/v3/tag': ['get'] },
      added: [
        { path: '/api/v3/movie', method: 'get' },
        { path: '/api/v3/tag', method: 'get' },
      ],
      removed: [],
    });
  });
});

describe('learning deadlines', () => {
  const now = Date.UTC(2030, 0, 1);

  it('accepts a deadline in the future, at most seven days ahead', () => {
    expect(learningDeadlineProblem(new Date(now + 1), now)).toBeUndefined();
    expect(learningDeadlineProblem(new Date(now + MAX_LEARNING_MS), now)).toBeUndefined();
  });

  it('refuses an invalid time, a time not in the future, and one more than seven days ahead', () => {
    expect(learningDeadlineProblem(new Date('not a time'), now)).toBe('until must be an ISO 8601 time');
    expect(learningDeadlineProblem(new Date(now), now)).toBe('until must be in the future');
    expect(learningDeadlineProblem(new Date(now + MAX_LEARNING_MS + 1), now)).toBe(
      'until must be at most 7 days ahead',
    );
  });
});
