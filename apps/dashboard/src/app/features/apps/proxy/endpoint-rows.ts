import type { EndpointDto, EndpointsResponse, RouteRiskDto } from '@arrbiter/contracts';
import { routeShape } from '@arrbiter/shared/allowlist-rules';
import { AllowlistDraft, DEFAULT_METHODS, sortMethods } from './allowlist-draft';

/** One path of the permission editor. */
export interface EndpointRow {
  path: string;
  tag: string;
  inCatalog: boolean;
  sensitive: boolean;
  methods: string[];
  summaries: Record<string, string>;
  /** The server's risk of each method it knows on the path (`EndpointMethodDto.risk`). */
  risks: Record<string, RouteRiskDto>;
}

export interface EndpointGroup {
  tag: string;
  /** Granted routes first, then by path. */
  rows: EndpointRow[];
  /** How many of `rows` grant at least one method (in the draft). */
  granted: number;
}

export type RowFilter = 'all' | 'granted' | 'overridden' | 'changed';

export const OTHER_PATHS = 'Paths outside the catalog';

/**
 * Catalog paths plus every path the template, the overrides or the administrator named: one row per
 * route (paths that differ only in case or parameter names are one route, see `routeShape`).
 */
export function endpointRows(
  catalog: EndpointsResponse | null,
  draft: AllowlistDraft,
  customPaths: readonly string[],
): EndpointRow[] {
  const rows = new Map<string, EndpointRow>();
  for (const item of catalog?.items ?? []) {
    const shape = routeShape(item.path);
    if (!rows.has(shape)) rows.set(shape, catalogRow(item));
  }
  for (const path of [...draft.paths(), ...customPaths]) {
    const shape = routeShape(path);
    const known = rows.get(shape);
    const named = draft.namedMethods(path);
    if (known) {
      // Methods granted outside the catalog's list stay visible (and revocable).
      known.methods = sortMethods([...known.methods, ...named]);
    } else {
      rows.set(shape, {
        path,
        tag: OTHER_PATHS,
        inCatalog: false,
        sensitive: false,
        methods: sortMethods([...DEFAULT_METHODS, ...named]),
        summaries: {},
        risks: {},
      });
    }
  }
  return [...rows.values()];
}

function catalogRow(item: EndpointDto): EndpointRow {
  const summaries: Record<string, string> = {};
  const risks: Record<string, RouteRiskDto> = {};
  for (const m of item.methods) {
    if (m.summary) summaries[m.method] = m.summary;
    risks[m.method] = m.risk;
  }
  return {
    path: item.path,
    tag: item.inCatalog ? (item.tags[0] ?? 'Untagged') : OTHER_PATHS,
    inCatalog: item.inCatalog,
    sensitive: item.sensitive,
    methods: sortMethods(item.methods.map((m) => m.method)),
    summaries,
    risks,
  };
}

/** "1 path", "2 paths". */
export function pathCount(count: number): string {
  return `${count} ${count === 1 ? 'path' : 'paths'}`;
}

/** A group's count as its summary shows it: "2 of 4 granted" ("1 path, granted" when it has one path). */
export function groupCount(group: EndpointGroup): string {
  if (group.rows.length === 1) return group.granted ? '1 path, granted' : '1 path, not granted';
  return `${group.granted} of ${group.rows.length} granted`;
}

/**
 * Rows matching a search on the API path, a tag and a filter, grouped by tag (other paths last); in each
 * group the granted routes come first.
 */
export function groupRows(
  rows: readonly EndpointRow[],
  draft: AllowlistDraft,
  search: string,
  tag: string,
  filter: RowFilter,
): EndpointGroup[] {
  const needle = search.trim().toLowerCase();
  const groups = new Map<string, EndpointRow[]>();
  for (const row of rows) {
    if (needle && !row.path.toLowerCase().includes(needle)) continue;
    if (tag && row.tag !== tag) continue;
    if (filter === 'granted' && draft.effective(row.path).length === 0) continue;
    if (filter === 'overridden' && !draft.hasOverride(row.path)) continue;
    if (filter === 'changed' && !draft.isChanged(row.path)) continue;
    const list = groups.get(row.tag) ?? [];
    list.push(row);
    groups.set(row.tag, list);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === OTHER_PATHS ? 1 : b === OTHER_PATHS ? -1 : a.localeCompare(b)))
    .map(([groupTag, list]) => {
      const granted = new Set(list.filter((row) => draft.effective(row.path).length > 0));
      const rank = (row: EndpointRow) => (granted.has(row) ? 0 : 1);
      return {
        tag: groupTag,
        rows: list.sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path)),
        granted: granted.size,
      };
    });
}
