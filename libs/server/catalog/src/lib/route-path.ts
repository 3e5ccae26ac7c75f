/** How a route segment matches: a literal, a literal with embedded parameters, or one whole parameter. */
export const enum SegmentKind {
  Literal = 0,
  Mixed = 1,
  Param = 2,
}

export interface RouteSegment {
  kind: SegmentKind;
  /** Lower-cased literal text (Literal), the parameter name (Param), or a matcher (Mixed). */
  text: string;
  regex?: RegExp;
  /** Parameter names in this segment, in order. */
  params: string[];
}

const PARAM = /\{([^{}/]+)\}/g;

/** Splits an OpenAPI path template (`/api/v3/movie/{id}`) into matchable segments. */
export function parseRoutePath(path: string): RouteSegment[] {
  return path
    .split('/')
    .filter((s) => s.length > 0)
    .map((segment) => {
      const whole = /^\{([^{}/]+)\}$/.exec(segment);
      if (whole) return { kind: SegmentKind.Param, text: whole[1], params: [whole[1]] };
      const params = [...segment.matchAll(PARAM)].map((m) => m[1]);
      if (params.length === 0) return { kind: SegmentKind.Literal, text: segment.toLowerCase(), params };
      const pattern = segment
        .split(PARAM)
        .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return { kind: SegmentKind.Mixed, text: segment.toLowerCase(), regex: new RegExp(`^${pattern}$`, 'i'), params };
    });
}

/**
 * The identity of a route: literals lower-cased (Servarr routing is case-insensitive) and parameter
 * names erased, so `/api/v3/Movie/{id}` and `/api/v3/movie/{movieId}` are the same route.
 */
export function routeShape(path: string): string {
  const segments = path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => s.replace(PARAM, '{}').toLowerCase());
  return `/${segments.join('/')}`;
}

/** Whether a string is a usable allowlist path: `/`-rooted segments, literal or `{param}`, no query. */
export function isRoutePath(path: string): boolean {
  if (path.length < 2 || path.length > 512 || !path.startsWith('/')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\s?#\\\u0000-\u001f\u007f]/.test(path) || path.includes('//')) return false;
  return path
    .split('/')
    .slice(1)
    .every((segment) => segment.length > 0 && segment !== '.' && segment !== '..' && balancedBraces(segment));
}

function balancedBraces(segment: string): boolean {
  const stripped = segment.replace(PARAM, '');
  return !stripped.includes('{') && !stripped.includes('}');
}
