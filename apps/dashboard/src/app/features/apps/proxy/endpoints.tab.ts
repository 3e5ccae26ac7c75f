import { HttpErrorResponse } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import type { AllowlistResponse, EndpointsResponse, RouteRiskDto } from '@arrbiter/contracts';
import { AuthService } from '../../../core/auth.service';
import { CanDirective } from '../../../core/can.directive';
import { HasUnsavedChanges } from '../../../core/unsaved-changes.guard';
import { ProxiesApiService } from '../proxies-api.service';
import { AllowlistDraft, customPathProblem, sortMethods } from './allowlist-draft';
import { EndpointRow, endpointRows, groupCount, groupRows, OTHER_PATHS, RowFilter } from './endpoint-rows';
import { ProxyContext } from './proxy-context';
import { GrantUndoComponent, UndoableRevision } from './grant-undo.component';
import {
  ConfirmService,
  confirmGrant,
  describeError,
  EmptyStateComponent,
  LoadStateComponent,
  MethodBadgeComponent,
  methodLabel,
} from '@arrbiter/dashboard/ui';

/** A route the permissions lib calls destructive by its name: one ending in `editor` or `bulk`. */
export function destructivePath(path: string): boolean {
  return /\/(editor|bulk)$/i.test(path);
}

/**
 * What a grant the editor adds risks: the server's `routeRisk` for the row's method when the catalog
 * knows it (`EndpointMethodDto.risk`); for a path or method the catalog does not know, the same rule's
 * by-name part (every DELETE, a route ending in `editor` or `bulk`). Null when neither sensitive nor
 * destructive.
 */
export function grantRisk(
  grant: { method: string; path: string },
  rows: ReadonlyMap<string, EndpointRow>,
): RouteRiskDto | null {
  const known = rows.get(grant.path)?.risks[grant.method.toLowerCase()];
  if (known) return known.sensitive || known.destructive ? known : null;
  if (grant.method.toLowerCase() === 'delete' || destructivePath(grant.path))
    return {
      sensitive: false,
      destructive: true,
      purpose: 'delete',
      reason: 'Removes or overwrites things in the library.',
    };
  return null;
}

/** A row's badge: sensitive before destructive, with the methods it concerns and the server's reason. */
export interface RowRisk {
  level: 'sensitive' | 'destructive';
  /** The methods the badge is about, as labels (GET, DELETE); empty when the name rule says it of the path. */
  methods: string[];
  reason: string;
}

/**
 * What a row's badge says: from the server's risk of each method it knows (`EndpointMethodDto.risk`),
 * or, for a path it does not know (added here, or only in the allowlist), the name rule.
 */
export function rowRisk(row: EndpointRow): RowRisk | null {
  const known = Object.entries(row.risks);
  if (known.length > 0) {
    for (const level of ['sensitive', 'destructive'] as const) {
      const hits = known.filter(([, risk]) => risk[level]);
      if (hits.length > 0)
        return { level, methods: sortMethods(hits.map(([m]) => m)).map(methodLabel), reason: hits[0][1].reason };
    }
    return null;
  }
  if (row.sensitive) return { level: 'sensitive', methods: [], reason: 'Exposes secrets or controls the server.' };
  if (destructivePath(row.path))
    return { level: 'destructive', methods: [], reason: 'Removes or overwrites things in the library.' };
  return null;
}

/** The permission editor: the catalog by tag, methods as toggles, a draft reviewed before it is saved. */
@Component({
  selector: 'arb-endpoints-tab',
  imports: [CanDirective, LoadStateComponent, MethodBadgeComponent, EmptyStateComponent, GrantUndoComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  host: { '(window:beforeunload)': 'beforeUnload($event)' },
  templateUrl: './endpoints.tab.html',
  styleUrl: './endpoints.tab.scss',
})
export class EndpointsTab implements HasUnsavedChanges {
  private readonly api = inject(ProxiesApiService);
  protected readonly context = inject(ProxyContext);
  private readonly auth = inject(AuthService);
  /** Viewers see the grants, read only. */
  protected readonly canEdit = computed(() => this.auth.can('editor'));

  protected readonly loading = signal(false);
  protected readonly loadError = signal<string | null>(null);
  /** Null when the server has no catalog for the proxy (the editor then shows the allowlist's paths). */
  protected readonly catalog = signal<EndpointsResponse | null>(null);
  protected readonly catalogNotice = signal<string | null>(null);
  protected readonly draft = signal<AllowlistDraft | null>(null);
  protected readonly search = signal('');
  protected readonly tag = signal('');
  protected readonly filter = signal<RowFilter>('all');
  protected readonly customPaths = signal<string[]>([]);
  protected readonly customPath = signal('');
  protected readonly customError = signal<string | null>(null);
  protected readonly expanded = signal<ReadonlySet<string>>(new Set());
  protected readonly reviewing = signal(false);
  protected readonly saving = signal(false);
  protected readonly saveMessage = signal<{ ok: boolean; text: string; undo?: UndoableRevision[] } | null>(null);
  private readonly confirm = inject(ConfirmService);
  protected readonly rowRisk = rowRisk;
  protected readonly method = methodLabel;
  protected readonly otherPaths = OTHER_PATHS;
  protected readonly groupCount = groupCount;

  private readonly rows = computed(() => {
    const draft = this.draft();
    return draft ? endpointRows(this.catalog(), draft, this.customPaths()) : [];
  });
  protected readonly tags = computed(() => [...new Set(this.rows().map((r) => r.tag))].sort());
  protected readonly groups = computed(() => {
    const draft = this.draft();
    return draft ? groupRows(this.rows(), draft, this.search(), this.tag(), this.filter()) : [];
  });
  protected readonly changes = computed(() => this.draft()?.changes() ?? { added: [], removed: [] });
  protected readonly dirty = computed(() => this.draft()?.dirty ?? false);
  /** Searching or filtering opens every matching group. */
  protected readonly narrowed = computed(
    () => this.search().trim() !== '' || this.filter() !== 'all' || this.tag() !== '',
  );

  constructor() {
    effect(() => {
      const id = this.context.proxyId();
      if (id) untracked(() => void this.load(id));
    });
  }

  hasUnsavedChanges(): boolean {
    return this.dirty();
  }

  protected beforeUnload(event: BeforeUnloadEvent): void {
    if (this.dirty()) event.preventDefault();
  }

  protected async load(id = this.context.proxyId()): Promise<void> {
    this.loading.set(true);
    this.loadError.set(null);
    try {
      const [allowlist, catalog] = await Promise.all([this.api.allowlist(id), this.loadCatalog(id)]);
      this.reset(allowlist);
      this.catalog.set(catalog);
    } catch (error) {
      this.loadError.set(describeError(error));
    } finally {
      this.loading.set(false);
    }
  }

  private async loadCatalog(id: string): Promise<EndpointsResponse | null> {
    try {
      this.catalogNotice.set(null);
      return await this.api.endpoints(id);
    } catch (error) {
      if (error instanceof HttpErrorResponse && error.status === 404) {
        this.catalogNotice.set('The endpoint catalog is not available on this server: showing the allowlist’s paths.');
      } else {
        this.catalogNotice.set(
          `The endpoint catalog could not be loaded (${describeError(error)}): showing the allowlist’s paths.`,
        );
      }
      return null;
    }
  }

  private reset(allowlist: AllowlistResponse): void {
    this.draft.set(AllowlistDraft.from(allowlist.template, allowlist.overrides));
    this.customPaths.set([]);
    this.reviewing.set(false);
  }

  protected isOpen(tag: string): boolean {
    return this.narrowed() || this.expanded().has(tag);
  }

  protected setOpen(tag: string, open: boolean): void {
    if (this.narrowed() || open === this.expanded().has(tag)) return;
    this.expanded.update((set) => {
      const next = new Set(set);
      if (open) next.add(tag);
      else next.delete(tag);
      return next;
    });
  }

  protected toggle(path: string, method: string): void {
    this.saveMessage.set(null);
    this.draft.update((d) => d?.toggle(path, method) ?? null);
  }

  protected resetPath(path: string): void {
    this.draft.update((d) => d?.reset(path) ?? null);
  }

  protected deny(path: string): void {
    this.draft.update((d) => d?.deny(path) ?? null);
  }

  protected discard(): void {
    this.draft.update((d) => d?.discard() ?? null);
    this.reviewing.set(false);
  }

  protected addCustomPath(): void {
    const path = this.customPath().trim();
    const problem = customPathProblem(path);
    this.customError.set(problem);
    if (problem) return;
    if (!this.rows().some((r) => r.path === path)) this.customPaths.update((paths) => [...paths, path]);
    this.customPath.set('');
    this.search.set(path);
  }

  protected async save(): Promise<void> {
    const draft = this.draft();
    const proxy = this.context.proxy.value();
    if (!draft || !proxy) return;
    this.saving.set(true);
    this.saveMessage.set(null);
    const { added, removed } = this.changes();
    const rows = new Map(this.rows().map((r) => [r.path, r]));
    const calls = added.map((g) => ({ label: `${methodLabel(g.method)} ${g.path}`, risk: grantRisk(g, rows) }));
    if (!(await confirmGrant(this.confirm, calls, { confirmLabel: 'Save' }))) {
      this.saving.set(false);
      return;
    }
    try {
      const saved = await this.api.saveConfig(proxy.id, { overrides: draft.overrides, active: proxy.active });
      this.reset(saved);
      // Undo takes back the grants of the revision this save wrote (the server names it).
      const revisionId = added.length > 0 ? saved.revisionId : null;
      this.saveMessage.set({
        ok: true,
        text: `Configuration saved: ${added.length} grant${added.length === 1 ? '' : 's'} added, ${removed.length} removed.`,
        ...(revisionId ? { undo: [{ id: revisionId, proxyId: proxy.id }] } : {}),
      });
    } catch (error) {
      this.saveMessage.set({ ok: false, text: describeError(error) });
    } finally {
      this.saving.set(false);
    }
  }
}
