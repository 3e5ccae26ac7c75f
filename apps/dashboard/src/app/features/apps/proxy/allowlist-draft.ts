import type { AllowlistMap, Grant } from '@arrbiter/contracts';

/** Methods in the order an editor shows them; unknown methods follow, alphabetically. */
export const METHOD_ORDER: readonly string[] = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/** Methods offered for a path the catalog does not describe. */
export const DEFAULT_METHODS: readonly string[] = ['get', 'post', 'put', 'patch', 'delete', 'head'];

export function sortMethods(methods: Iterable<string>): string[] {
  const rank = (m: string) => {
    const i = METHOD_ORDER.indexOf(m);
    return i < 0 ? METHOD_ORDER.length : i;
  };
  return [...new Set([...methods].map((m) => m.toLowerCase()))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function has(map: AllowlistMap, path: string): boolean {
  return Object.prototype.hasOwnProperty.call(map, path);
}

/** A path's effective methods: the override's list when the path has one (`[]` denies), else the template's. */
export function effectiveMethods(template: AllowlistMap, overrides: AllowlistMap, path: string): string[] {
  if (has(overrides, path)) return sortMethods(overrides[path] ?? []);
  return sortMethods(has(template, path) ? (template[path] ?? []) : []);
}

/** The effective allowlist: every path with at least one granted method. */
export function effectiveAllowlist(template: AllowlistMap, overrides: AllowlistMap): AllowlistMap {
  const result: AllowlistMap = {};
  for (const path of new Set([...Object.keys(template), ...Object.keys(overrides)])) {
    const methods = effectiveMethods(template, overrides, path);
    if (methods.length > 0) result[path] = methods;
  }
  return result;
}

export function grantsOf(map: AllowlistMap): Grant[] {
  return Object.keys(map)
    .sort()
    .flatMap((path) => sortMethods(map[path] ?? []).map((method) => ({ path, method })));
}

/** Grants in `after` but not in `before` (added), and the other way round (removed). */
export function diffAllowlists(before: AllowlistMap, after: AllowlistMap): { added: Grant[]; removed: Grant[] } {
  const key = (g: Grant) => `${g.method} ${g.path}`;
  const beforeGrants = grantsOf(before);
  const afterGrants = grantsOf(after);
  const beforeKeys = new Set(beforeGrants.map(key));
  const afterKeys = new Set(afterGrants.map(key));
  return {
    added: afterGrants.filter((g) => !beforeKeys.has(key(g))),
    removed: beforeGrants.filter((g) => !afterKeys.has(key(g))),
  };
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

/**
 * An unsaved edit of a proxy's overrides. Immutable: every edit returns a new draft.
 * Added/removed counts compare the draft's effective grants with the saved effective grants.
 */
export class AllowlistDraft {
  private constructor(
    readonly template: AllowlistMap,
    readonly saved: AllowlistMap,
    readonly overrides: AllowlistMap,
  ) {}

  static from(template: AllowlistMap, savedOverrides: AllowlistMap): AllowlistDraft {
    return new AllowlistDraft(template, savedOverrides, { ...savedOverrides });
  }

  /** The overrides differ from the saved ones (what a save would send). */
  get dirty(): boolean {
    return normalized(this.overrides) !== normalized(this.saved);
  }

  effective(path: string): string[] {
    return effectiveMethods(this.template, this.overrides, path);
  }

  savedEffective(path: string): string[] {
    return effectiveMethods(this.template, this.saved, path);
  }

  hasOverride(path: string): boolean {
    return has(this.overrides, path);
  }

  /** The path has an override with no methods: denied whatever the template says. */
  isDenied(path: string): boolean {
    return this.hasOverride(path) && (this.overrides[path] ?? []).length === 0;
  }

  /** The path's override differs from the saved one. */
  isChanged(path: string): boolean {
    const before = has(this.saved, path) ? normalized({ p: this.saved[path] ?? [] }) : null;
    const after = has(this.overrides, path) ? normalized({ p: this.overrides[path] ?? [] }) : null;
    return before !== after;
  }

  /** Every path the template or an override names. */
  paths(): string[] {
    return [...new Set([...Object.keys(this.template), ...Object.keys(this.saved), ...Object.keys(this.overrides)])];
  }

  methodState(path: string, method: string): MethodState {
    const granted = this.effective(path).includes(method);
    const template = effectiveMethods(this.template, {}, path).includes(method);
    const source: GrantSource = !this.hasOverride(path) ? 'template' : this.isDenied(path) ? 'denied' : 'override';
    return { method, granted, template, source, changed: granted !== this.savedEffective(path).includes(method) };
  }

  /** Grants or revokes one method: the path's override starts from its current effective list. */
  set(path: string, method: string, granted: boolean): AllowlistDraft {
    const current = this.effective(path);
    const next = granted ? sortMethods([...current, method]) : current.filter((m) => m !== method.toLowerCase());
    return new AllowlistDraft(this.template, this.saved, { ...this.overrides, [path]: next });
  }

  toggle(path: string, method: string): AllowlistDraft {
    return this.set(path, method, !this.effective(path).includes(method));
  }

  /** Denies every method of the path (an override of `[]`). */
  deny(path: string): AllowlistDraft {
    return new AllowlistDraft(this.template, this.saved, { ...this.overrides, [path]: [] });
  }

  /** Removes the path's override: it inherits the template again. */
  reset(path: string): AllowlistDraft {
    if (!this.hasOverride(path)) return this;
    const overrides = { ...this.overrides };
    delete overrides[path];
    return new AllowlistDraft(this.template, this.saved, overrides);
  }

  /** Back to the saved configuration. */
  discard(): AllowlistDraft {
    return AllowlistDraft.from(this.template, this.saved);
  }

  effectiveAllowlist(): AllowlistMap {
    return effectiveAllowlist(this.template, this.overrides);
  }

  changes(): { added: Grant[]; removed: Grant[] } {
    return diffAllowlists(effectiveAllowlist(this.template, this.saved), this.effectiveAllowlist());
  }
}

/** A path an administrator may add by hand: starts with `/`, no spaces, query or fragment. */
export function customPathProblem(path: string): string | null {
  if (!path.startsWith('/')) return 'A path starts with /, like /api/v3/movie/{id}.';
  if (/[\s?#]/.test(path)) return 'A path has no spaces, query (?) or fragment (#).';
  if (path.length > 1 && path.endsWith('/')) return 'Leave out the trailing slash.';
  return null;
}
