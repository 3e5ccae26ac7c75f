import { jsonShapeProblem, MAX_JSON_DEPTH } from './json-shape';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
};

describe(jsonShapeProblem.name, () => {
  it('accepts primitives, ordinary bodies and nesting up to the limit', () => {
    expect(jsonShapeProblem('text')).toBeUndefined();
    expect(jsonShapeProblem(null)).toBeUndefined();
    expect(jsonShapeProblem({ username: 'a', overrides: { '/api/v3/movie': ['get'] } })).toBeUndefined();
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
  });

  it('refuses nesting past the limit, naming where, without recursing (100,000 levels)', () => {
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH + 1))).toBe(
      `is nested deeper than 64 levels (at ${'[0]'.repeat(MAX_JSON_DEPTH)})`,
    );
    expect(jsonShapeProblem({ a: { b: nested(100_000) } })).toMatch(/^is nested deeper than 64 levels \(at a\.b\[0\]/);
    expect(jsonShapeProblem(nested(3), 2)).toBe('is nested deeper than 2 levels (at [0][0])');
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s at any depth, naming where', (key) => {
    expect(jsonShapeProblem(JSON.parse(`{"${key}": 1}`))).toBe(`uses the reserved key "${key}"`);
    expect(jsonShapeProblem(JSON.parse(`{"apps": [{"overrides": {"${key}": ["get"]}}]}`))).toBe(
      `uses the reserved key "${key}" in apps[0].overrides`,
    );
  });

  it('cuts long keys in the path it names', () => {
    expect(jsonShapeProblem({ ['k'.repeat(100)]: { constructor: 1 } })).toBe(
      `uses the reserved key "constructor" in ${'k'.repeat(40)}…`,
    );
  });
});
