import { MAX_ROUTE_PATH_LENGTH, MAX_SEGMENT_PARAMS, routeTemplateProblem } from './route-template';

describe(routeTemplateProblem.name, () => {
  it('accepts the routes Servarr describes and parameters embedded between literals', () => {
    for (const path of ['/api/v3/movie/{id}', '/api/v3/{x}/lookup', '/feed/{name}.ics', '/x/{a}.{b}-{c}_{d}', '/ping'])
      expect({ path, problem: routeTemplateProblem(path) }).toEqual({ path, problem: undefined });
  });

  it('refuses parameters with no literal text between them, naming the segment', () => {
    expect(routeTemplateProblem('/api/v3/x{a}{b}{c}{d}{e}{f}{g}y')).toBe(
      '"/api/v3/x{a}{b}{c}{d}{e}{f}{g}y": segment "x{a}{b}{c}{d}{e}{f}{g}y" has parameters with no literal text between them ({a}{b}): separate them, e.g. {a}-{b}',
    );
    expect(routeTemplateProblem('/{a}{b}')).toContain('no literal text between them');
  });

  it(`refuses more than ${MAX_SEGMENT_PARAMS} parameters in one segment`, () => {
    expect(routeTemplateProblem('/x/{a}.{b}.{c}.{d}.{e}')).toBe(
      `"/x/{a}.{b}.{c}.{d}.{e}": segment "{a}.{b}.{c}.{d}.{e}" has 5 parameters (at most ${MAX_SEGMENT_PARAMS} in one segment)`,
    );
  });

  it(`refuses a template longer than ${MAX_ROUTE_PATH_LENGTH} characters`, () => {
    const path = `/${'a'.repeat(MAX_ROUTE_PATH_LENGTH)}`;
    expect(routeTemplateProblem(path)).toBe(
      `"${path.slice(0, 100)}…" is longer than ${MAX_ROUTE_PATH_LENGTH} characters`,
    );
    expect(routeTemplateProblem(`/${'a'.repeat(MAX_ROUTE_PATH_LENGTH - 1)}`)).toBeUndefined();
  });
});
