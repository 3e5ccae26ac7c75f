/**
 * A `{parameter}` in a route template. Global: use it only with `matchAll`, `replace` and `split`,
 * which do not depend on (or leave behind) its `lastIndex`.
 */
export const ROUTE_PARAM = /\{([^{}/]+)\}/g;

/** Longest route template accepted from a description, an override or a template file. */
export const MAX_ROUTE_PATH_LENGTH = 512;
/** Most parameters one segment may embed (`{name}.{ext}` has 2; Servarr's own routes never embed any). */
export const MAX_SEGMENT_PARAMS = 4;

/**
 * Why a route template is refused (undefined when it is usable): longer than `MAX_ROUTE_PATH_LENGTH`,
 * a segment with more than `MAX_SEGMENT_PARAMS` parameters, or two parameters with no literal text
 * between them (`{a}{b}`: where one ends is anyone's guess).
 */
export function routeTemplateProblem(path: string): string | undefined {
  if (path.length > MAX_ROUTE_PATH_LENGTH) {
    return `"${path.slice(0, 100)}…" is longer than ${MAX_ROUTE_PATH_LENGTH} characters`;
  }
  for (const segment of path.split('/')) {
    const params = [...segment.matchAll(ROUTE_PARAM)];
    for (let i = 1; i < params.length; i += 1) {
      const [previous, current] = [params[i - 1], params[i]];
      if ((previous.index ?? 0) + previous[0].length === current.index) {
        return `"${path}": segment "${segment}" has parameters with no literal text between them (${previous[0]}${current[0]}): separate them, e.g. ${previous[0]}-${current[0]}`;
      }
    }
    if (params.length > MAX_SEGMENT_PARAMS) {
      return `"${path}": segment "${segment}" has ${params.length} parameters (at most ${MAX_SEGMENT_PARAMS} in one segment)`;
    }
  }
  return undefined;
}

/**
 * The identity of a route: literals lower-cased (Servarr routing is case-insensitive) and parameter
 * names erased, so `/api/v3/Movie/{id}` and `/api/v3/movie/{movieId}` are the same route.
 */
export function routeShape(path: string): string {
  const segments = path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => s.replace(ROUTE_PARAM, '{}').toLowerCase());
  return `/${segments.join('/')}`;
}

/** Whether a string is a usable allowlist path: `/`-rooted segments, literal or `{param}`, no query. */
export function isRoutePath(path: string): boolean {
  if (path.length < 2 || path.length > MAX_ROUTE_PATH_LENGTH || !path.startsWith('/')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\s?#\\\u0000-\u001f\u007f]/.test(path) || path.includes('//')) return false;
  return path
    .split('/')
    .slice(1)
    .every((segment) => segment.length > 0 && segment !== '.' && segment !== '..' && balancedBraces(segment));
}

function balancedBraces(segment: string): boolean {
  const stripped = segment.replace(ROUTE_PARAM, '');
  return !stripped.includes('{') && !stripped.includes('}');
}
