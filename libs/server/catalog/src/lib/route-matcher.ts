import { HttpMethod, routeShape } from '@arrbiter/shared/allowlist-rules';
import { CatalogRoute } from './openapi';
import { matchesPattern, MixedPattern, parseRoutePath, SegmentKind } from './route-path';

/** A route that a request resolved to. */
export interface ResolvedRoute {
  /** The route as written in the description or allowlist (`/api/v3/movie/{id}`). */
  path: string;
  /** Its identity for allowlist lookups (see `routeShape`). */
  shape: string;
  /** Segment kinds, for comparing the specificity of two resolutions. */
  kinds: readonly SegmentKind[];
  /** The catalog route's operations (undefined for bare allowlist paths): what `routeRisk` reads of it. */
  operations?: CatalogRoute['operations'];
}

interface Leaf extends ResolvedRoute {
  /** Per method, the segment positions that must be all digits. */
  integerPositions: Map<HttpMethod, number[]>;
  /** For methods the route does not describe: positions typed integer by any of its operations. */
  anyIntegerPositions: number[];
}

interface Node {
  literal?: Map<string, Node>;
  mixed?: { pattern: MixedPattern; node: Node }[];
  param?: Node;
  leaf?: Leaf;
}

const DIGITS = /^\d+$/;

/** Routes to resolve against: catalog routes (with operations) or bare allowlist paths. */
export interface MatchableRoute {
  path: string;
  operations?: CatalogRoute['operations'];
}

/**
 * Resolves a request path to its single most specific route, the way Servarr's ASP.NET Core routing
 * does: case-insensitive, a literal segment beats a parameter, a parameter matches exactly one
 * non-empty segment, and only digits where the description types it `integer` for that method.
 * Parameters embedded in a segment (`{name}.ics`) are matched without regular expressions, in time
 * linear in the request (see `matchesPattern`), whatever the template.
 */
export class RouteMatcher {
  private readonly root: Node = {};
  private readonly shapes = new Set<string>();

  constructor(routes: Iterable<MatchableRoute> = []) {
    for (const route of routes) this.add(route);
  }

  get size(): number {
    return this.shapes.size;
  }

  /** Whether a route of this shape (see `routeShape`) is in the table. */
  hasShape(shape: string): boolean {
    return this.shapes.has(shape);
  }

  add(route: MatchableRoute): void {
    const segments = parseRoutePath(route.path);
    let node = this.root;
    for (const segment of segments) {
      if (segment.kind === SegmentKind.Literal) {
        node.literal ??= new Map();
        let next = node.literal.get(segment.text);
        if (!next) node.literal.set(segment.text, (next = {}));
        node = next;
      } else if (segment.kind === SegmentKind.Mixed) {
        const pattern = segment.pattern as MixedPattern;
        node.mixed ??= [];
        let entry = node.mixed.find((m) => m.pattern.key === pattern.key);
        if (!entry) node.mixed.push((entry = { pattern, node: {} }));
        node = entry.node;
      } else {
        node = node.param ??= {};
      }
    }
    if (node.leaf) return; // Same route shape already known: the first description wins.
    const positionOf = new Map<string, number>();
    segments.forEach((s, i) => s.kind === SegmentKind.Param && positionOf.set(s.text, i));
    const integerPositions = new Map<HttpMethod, number[]>();
    const any = new Set<number>();
    for (const [method, operation] of Object.entries(route.operations ?? {}) as [
      HttpMethod,
      { integerParams: string[] },
    ][]) {
      const positions = operation.integerParams
        .map((name) => positionOf.get(name))
        .filter((p): p is number => p !== undefined);
      integerPositions.set(method, positions);
      positions.forEach((p) => any.add(p));
    }
    node.leaf = {
      path: route.path,
      shape: routeShape(route.path),
      kinds: segments.map((s) => s.kind),
      ...(route.operations ? { operations: route.operations } : {}),
      integerPositions,
      anyIntegerPositions: [...any],
    };
    this.shapes.add(node.leaf.shape);
  }

  /** The most specific route for these (canonical, `/`-split, non-empty) segments, if any. */
  resolve(segments: readonly string[], method: HttpMethod): ResolvedRoute | undefined {
    const lower = segments.map((s) => s.toLowerCase());
    return this.walk(this.root, segments, lower, 0, method);
  }

  private walk(
    node: Node,
    segments: readonly string[],
    lower: readonly string[],
    i: number,
    method: HttpMethod,
  ): Leaf | undefined {
    if (i === segments.length) return node.leaf && accepts(node.leaf, segments, method) ? node.leaf : undefined;
    const literal = node.literal?.get(lower[i]);
    if (literal) {
      const found = this.walk(literal, segments, lower, i + 1, method);
      if (found) return found;
    }
    if (node.mixed) {
      for (const mixed of node.mixed) {
        if (!matchesPattern(mixed.pattern, lower[i])) continue;
        const found = this.walk(mixed.node, segments, lower, i + 1, method);
        if (found) return found;
      }
    }
    if (node.param && segments[i].length > 0) return this.walk(node.param, segments, lower, i + 1, method);
    return undefined;
  }
}

function accepts(leaf: Leaf, segments: readonly string[], method: HttpMethod): boolean {
  const positions = leaf.integerPositions.get(method) ?? leaf.anyIntegerPositions;
  return positions.every((p) => DIGITS.test(segments[p]));
}

/** Of two resolutions, the more specific one (the first differing segment that is more literal wins). */
export function moreSpecific(a: ResolvedRoute | undefined, b: ResolvedRoute | undefined): ResolvedRoute | undefined {
  if (!a) return b;
  if (!b) return a;
  for (let i = 0; i < a.kinds.length; i += 1) {
    if (a.kinds[i] !== b.kinds[i]) return a.kinds[i] < b.kinds[i] ? a : b;
  }
  return a;
}
