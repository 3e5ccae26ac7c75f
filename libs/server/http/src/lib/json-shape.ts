/**
 * How deeply a JSON body (or a configuration document) may nest its objects and arrays. No request of
 * the admin API comes near it (the OpenAPI descriptions nest 11 levels); a body nested hundreds of
 * levels deep overflows the stack of recursive code down the line (validation, class-transformer).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Keys no body may use: class-transformer reads `constructor` as the class to build (a nested
 * `{"constructor": 1}` threw a TypeError, a 500), and `__proto__`/`prototype` are the prototype chain's.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

interface Container {
  value: object;
  /** 1 for the outermost object or array. */
  depth: number;
  parent: Container | undefined;
  /** Its key or index in `parent`. */
  key: string;
}

/** `apps[0].proxies[1].overrides`: where a container is, from the outermost one. */
function pathOf(container: Container | undefined, key?: string): string {
  const keys: string[] = key === undefined ? [] : [key];
  for (let at = container; at?.parent; at = at.parent) keys.push(at.key);
  let path = '';
  for (const key of keys.reverse()) {
    // The client's own keys, echoed: a long one is cut.
    const part = key.length > 40 ? `${key.slice(0, 40)}…` : key;
    path += /^\d+$/.test(part) ? `[${part}]` : path === '' ? part : `.${part}`;
  }
  return path;
}

/**
 * What makes a parsed JSON value unfit to go further, or undefined: objects and arrays nested more than
 * `max` levels deep (the outermost is level 1), or a key of `RESERVED_KEYS`; the text names where
 * (`the document …`-style sentences start with it: "nested deeper than 64 levels at apps[0]…").
 * Iterative: it never recurses whatever the depth, and stops at the first problem.
 */
export function jsonShapeProblem(value: unknown, max: number = MAX_JSON_DEPTH): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: Container[] = [{ value, depth: 1, parent: undefined, key: '' }];
  while (pending.length > 0) {
    const container = pending.pop() as Container;
    const current = container.value;
    const array = Array.isArray(current);
    for (const key of Object.keys(current)) {
      if (!array && RESERVED_KEYS.has(key)) {
        const where = pathOf(container);
        return `uses the reserved key "${key}"${where === '' ? '' : ` in ${where}`}`;
      }
      const child = (current as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      if (container.depth >= max) return `is nested deeper than ${max} levels (at ${pathOf(container, key)})`;
      pending.push({ value: child, depth: container.depth + 1, parent: container, key });
    }
  }
  return undefined;
}
