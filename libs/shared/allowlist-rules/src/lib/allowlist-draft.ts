import type { AllowlistMap, Grant } from '@arrbiter/contracts';
import { diffGrants, effectiveAllowlist } from './allowlist';
import { routeShape } from './route-template';

/** Methods in the order an editor shows them; unknown methods follow, alphabetically. */
export const METHOD_ORDER: readonly string[] = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

function methodRank(method: string): number {
  const i = METHOD_ORDER.indexOf(method);
  return i < 0 ? METHOD_ORDER.length : i;
}

/** Lower-cased, without duplicates, in the editor's order. */
export function sortMethods(methods: Iterable<string>): string[] {
  return [...new Set([...methods].map((m) => m.toLowerCase()))].sort(
    (a, b) => methodRank(a) - methodRank(b) || a.localeCompare(b),
  );
}

/** Grants in the editor's order: by path, then by method as the editor shows them. */
export function inEditorOrder(grants: readonly Grant[]): Grant[] {
  return [...grants].sort(
    (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || methodRank(a.method) - methodRank(b.method),
  );
}

/** One route of an allowlist: the path it is written as and its methods. */
interface NamedRoute {
  path: string;
  methods: string[];
}

/** An allowlist by route shape; of two paths of the same route the later wins, as in `effectiveAllowlist`. */
function routesOf(map: AllowlistMap): Map<string, NamedRoute> {
  const routes = new Map<string, NamedRoute>();
  for (const [path, methods] of Object.entries(map)) routes.set(routeShape(path), { path, methods });
  return routes;
}

function methodsByShape(map: AllowlistMap): Map<string, string[]> {
  return new Map([...routesOf(map)].map(([shape, route]) => [shape, route.methods]));
}

function normalized(map: AllowlistMap): string {
  return JSON.stringify(
    Object.keys(map)
      .sort()
      .map((path) => [path, sortMethods(map[path] ?? [])]),
  );
}

/** Where a method's state on a path comes from. */
export type GrantSource = 'template' | 'override' | 'denied';

export interface MethodState {
  method: string;
  granted: boolean;
  /** The template grants it. */
  template: boolean;
  /** `template`: inherited; `override`: the path's override decides; `denied`: the override is `[]`. */
  source: GrantSource;
  /** Differs from the saved configuration. */
  changed: boolean;
}

/** What does not change while a draft is edited: the template and the saved configuration, indexed. */
interface Baseline {
  template: AllowlistMap;
  saved: AllowlistMap;
  templateRoutes: Map<string, NamedRoute>;
  savedRoutes: Map<string, NamedRoute>;
  savedEffective: AllowlistMap;
  savedEffectiveByShape: Map<string, string[]>;
}

/**
 * An unsaved edit of a proxy's overrides (the dashboard's permission editor). Immutable: every edit
 * returns a new draft. A path stands for its route, as on the server: `/api/v3/Movie/{movieId}` and
 * `/api/v3/movie/{id}` are one route (see `routeShape`), so an edit of either changes the override
 * the route already has, and the effective allowlist and the added/removed counts are the server's
 * (`effectiveAllowlist`, `diffGrants`): the draft's effective grants against the saved ones.
 */
export class AllowlistDraft {
  private readonly overrideRoutes: Map<string, NamedRoute>;
  private readonly current: AllowlistMap;
  private readonly currentByShape: Map<string, string[]>;

  private constructor(
    private readonly baseline: Baseline,
    readonly overrides: AllowlistMap,
  ) {
    this.overrideRoutes = routesOf(overrides);
    this.current = effectiveAllowlist(baseline.template, overrides);
    this.currentByShape = methodsByShape(this.current);
  }

  static from(template: AllowlistMap, savedOverrides: AllowlistMap): AllowlistDraft {
    const savedEffective = effectiveAllowlist(template, savedOverrides);
    const baseline: Baseline = {
      template,
      saved: savedOverrides,
      templateRoutes: routesOf(template),
      savedRoutes: routesOf(savedOverrides),
      savedEffective,
      savedEffectiveByShape: methodsByShape(savedEffective),
    };
    return new AllowlistDraft(baseline, { ...savedOverrides });
  }

  get template(): AllowlistMap {
    return this.baseline.template;
  }

  /** The saved overrides. */
  get saved(): AllowlistMap {
    return this.baseline.saved;
  }

  /** The overrides differ from the saved ones (what a save would send). */
  get dirty(): boolean {
    return normalized(this.overrides) !== normalized(this.saved);
  }

  /** The route's effective methods in the draft. */
  effective(path: string): string[] {
    return sortMethods(this.currentByShape.get(routeShape(path)) ?? []);
  }

  /** The route's effective methods as saved. */
  savedEffective(path: string): string[] {
    return sortMethods(this.baseline.savedEffectiveByShape.get(routeShape(path)) ?? []);
  }

  /** The path under which the draft's overrides name this route (it may be written differently). */
  overridePath(path: string): string | undefined {
    return this.overrideRoutes.get(routeShape(path))?.path;
  }

  hasOverride(path: string): boolean {
    return this.overrideRoutes.has(routeShape(path));
  }

  /** The route has an override with no methods: denied whatever the template says. */
  isDenied(path: string): boolean {
    return this.overrideRoutes.get(routeShape(path))?.methods.length === 0;
  }

  /** The route's override differs from the saved one. */
  isChanged(path: string): boolean {
    const shape = routeShape(path);
    const before = this.baseline.savedRoutes.get(shape);
    const after = this.overrideRoutes.get(shape);
    const key = (route: NamedRoute | undefined) => (route ? normalized({ [route.path]: route.methods }) : null);
    return key(before) !== key(after);
  }

  /** Every route the template or an override names, once each (by the first path naming it). */
  paths(): string[] {
    const paths = new Map<string, string>();
    for (const map of [this.template, this.saved, this.overrides]) {
      for (const path of Object.keys(map)) {
        const shape = routeShape(path);
        if (!paths.has(shape)) paths.set(shape, path);
      }
    }
    return [...paths.values()];
  }

  /** Every method the template, the saved overrides or the draft name for the route (granted or not). */
  namedMethods(path: string): string[] {
    const shape = routeShape(path);
    return sortMethods(
      [this.baseline.templateRoutes, this.baseline.savedRoutes, this.overrideRoutes].flatMap(
        (routes) => routes.get(shape)?.methods ?? [],
      ),
    );
  }

  methodState(path: string, method: string): MethodState {
    const granted = this.effective(path).includes(method);
    const template = sortMethods(this.baseline.templateRoutes.get(routeShape(path))?.methods ?? []).includes(method);
    const source: GrantSource = !this.hasOverride(path) ? 'template' : this.isDenied(path) ? 'denied' : 'override';
    return { method, granted, template, source, changed: granted !== this.savedEffective(path).includes(method) };
  }

  /** Grants or revokes one method: the route's override starts from its current effective list. */
  set(path: string, method: string, granted: boolean): AllowlistDraft {
    const current = this.effective(path);
    const next = granted ? sortMethods([...current, method]) : current.filter((m) => m !== method.toLowerCase());
    return this.withOverride(path, next);
  }

  toggle(path: string, method: string): AllowlistDraft {
    return this.set(path, method, !this.effective(path).includes(method));
  }

  /** Denies every method of the route (an override of `[]`). */
  deny(path: string): AllowlistDraft {
    return this.withOverride(path, []);
  }

  /** Removes the route's override: it inherits the template again. */
  reset(path: string): AllowlistDraft {
    if (!this.hasOverride(path)) return this;
    const shape = routeShape(path);
    const overrides = { ...this.overrides };
    for (const key of Object.keys(overrides)) if (routeShape(key) === shape) delete overrides[key];
    return new AllowlistDraft(this.baseline, overrides);
  }

  /** Back to the saved configuration. */
  discard(): AllowlistDraft {
    return new AllowlistDraft(this.baseline, { ...this.saved });
  }

  /** The draft's effective allowlist, as the server computes it from the template and these overrides. */
  effectiveAllowlist(): AllowlistMap {
    return this.current;
  }

  /** The effective grants a save would add and remove (by route shape, as in the revision's summary). */
  changes(): { added: Grant[]; removed: Grant[] } {
    const { added, removed } = diffGrants(this.baseline.savedEffective, this.current);
    return { added: inEditorOrder(added), removed: inEditorOrder(removed) };
  }

  /** Sets the route's override, under the path the overrides already name it by, if any. */
  private withOverride(path: string, methods: string[]): AllowlistDraft {
    const key = this.overridePath(path) ?? path;
    return new AllowlistDraft(this.baseline, { ...this.overrides, [key]: methods });
  }
}
