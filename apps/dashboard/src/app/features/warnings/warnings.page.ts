import { ChangeDetectionStrategy, Component, computed, effect, inject, input, signal, untracked } from '@angular/core';
import { PagedList } from '../../core/paged-list';
import { Router, RouterLink } from '@angular/router';
import type {
  AppDto,
  ProxyDto,
  RevisionDto,
  ServiceDto,
  WarningDto,
  WarningSort,
  WarningStatus,
} from '@arrbiter/contracts';
import { GrantUndoComponent } from '../apps/proxy/grant-undo.component';
import { Loadable } from '../../core/loadable';
import { AppsApiService } from '../apps/apps-api.service';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { isLearning } from '../apps/proxy/learning';
import { LearningControlComponent, LearningStateComponent } from '../apps/proxy/learning-control.component';
import { CanDirective } from '../../core/can.directive';
import { CallSourceComponent } from '../known-clients/call-source.component';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { clientForTemplate, splitCallers } from '../known-clients/known-clients';
import { ServicesApiService } from '../services/services-api.service';
import { WarningsApiService } from './warnings-api.service';
import { OpenWarningsService } from './open-warnings.service';
import {
  ConfirmService,
  confirmGrant,
  DATA_TABLE,
  describeError,
  RiskBadgeComponent,
  type ServerSort,
  EmptyStateComponent,
  LoadStateComponent,
  MethodBadgeComponent,
  methodLabel,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';

export const WARNING_STATUSES: readonly WarningStatus[] = ['open', 'learned', 'rate-limited', 'granted', 'dismissed'];
const SORTS: readonly WarningSort[] = ['lastSeen', 'firstSeen', 'count', 'app'];
/** How long the path search waits after the last keystroke. */
const SEARCH_DELAY_MS = 300;

/** A path split after each `/`, so that it wraps there (a `<wbr>` after each piece) and not mid-word. */
export function pathPieces(path: string): string[] {
  return path.split(/(?<=\/)/);
}

/** A grant's result line, and the revisions Undo takes back. */
interface GrantNotice {
  text: string;
  revisions: RevisionDto[];
}

interface Directory {
  apps: AppDto[];
  proxies: ProxyDto[];
  services: Map<string, ServiceDto>;
}

/** Refused calls across proxies, with grant and dismiss; learning mode per proxy. */
@Component({
  selector: 'arb-warnings-page',
  imports: [
    CallSourceComponent,
    CanDirective,
    LoadStateComponent,
    TimeComponent,
    RouterLink,
    LearningControlComponent,
    LearningStateComponent,
    MethodBadgeComponent,
    PageHeaderComponent,
    EmptyStateComponent,
    DATA_TABLE,
    GrantUndoComponent,
    RiskBadgeComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './warnings.page.html',
  styles: `
    select,
    input {
      max-width: 100%;
    }
    .form-grid > .field {
      min-width: 0;
    }
    code.path {
      overflow-wrap: anywhere;
    }
    .app-name {
      overflow-wrap: anywhere;
    }
    .nowrap,
    arb-time {
      white-space: nowrap;
    }
    .bulk {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem;
    }
  `,
})
export class WarningsPage {
  protected readonly byId = (w: WarningDto) => w.id;
  protected readonly rowTestId = (w: WarningDto) => 'warning-' + w.method + '-' + w.path;
  private readonly api = inject(WarningsApiService);
  private readonly appsApi = inject(AppsApiService);
  private readonly proxiesApi = inject(ProxiesApiService);
  private readonly servicesApi = inject(ServicesApiService);
  private readonly knownClientsApi = inject(KnownClientsApiService);
  private readonly router = inject(Router);
  private readonly confirm = inject(ConfirmService);
  private readonly openWarnings = inject(OpenWarningsService);
  protected readonly pieces = pathPieces;

  /** Filters, from the query string (so a filtered view can be linked and survives a reload). */
  readonly appId = input<string>();
  readonly proxyId = input<string>();
  readonly status = input<string>();
  /** Search in the route, the shape and the sample path. */
  readonly q = input<string>();
  /** Server-side order, from the query string: `sort` (a `WarningSort`) and `order` (`asc`/`desc`). */
  readonly sort = input<string>();
  readonly order = input<string>();
  protected readonly serverSort = computed<ServerSort>(() => ({
    key: SORTS.find((s) => s === this.sort()) ?? 'lastSeen',
    direction: this.order() === 'asc' ? 'ascending' : 'descending',
  }));

  protected readonly statuses = WARNING_STATUSES;
  protected readonly learning = isLearning;
  protected readonly directory = new Loadable<Directory>(async () => {
    const [apps, services] = await Promise.all([this.appsApi.listAll(), this.servicesApi.list()]);
    const proxies = (await Promise.all(apps.map((a) => this.proxiesApi.listForApp(a.id)))).flat();
    return { apps, proxies, services: new Map(services.map((s) => [s.id, s])) };
  });
  protected readonly list = new PagedList<WarningDto>((cursor) =>
    this.api.list({
      appId: this.appId(),
      proxyId: this.proxyId(),
      status: WARNING_STATUSES.find((s) => s === this.status()),
      q: this.q()?.trim() || undefined,
      sort: this.serverSort().key as WarningSort,
      order: this.serverSort().direction === 'ascending' ? 'asc' : 'desc',
      limit: 50,
      cursor,
    }),
  );
  protected readonly warnings = this.list.items;
  protected readonly nextCursor = this.list.nextCursor;
  protected readonly loading = this.list.loading;
  protected readonly loaded = this.list.loaded;
  protected readonly error = this.list.error;
  /** The catalogue of known clients, for links to their source; read once a warning names one. */
  private readonly knownClients = new Loadable(() => this.knownClientsApi.list());
  protected readonly clientSources = computed(
    () => new Map((this.knownClients.value() ?? []).map((c) => [c.id, c.source] as const)),
  );
  /** Per warning id: its known callers, the app's own client first (see `splitCallers`). */
  protected readonly callers = computed(() => {
    const clients = this.knownClients.value() ?? [];
    const apps = new Map((this.directory.value()?.apps ?? []).map((a) => [a.id, a]));
    return new Map(
      this.warnings()
        .filter((w) => (w.knownCallers?.length ?? 0) > 0)
        .map((w) => {
          const own = clientForTemplate(apps.get(w.appId)?.templateName, clients)?.id;
          return [w.id, splitCallers(w.knownCallers ?? [], own)] as const;
        }),
    );
  });
  protected readonly busy = signal<string | null>(null);
  protected readonly message = signal<{ ok: boolean; text: string } | null>(null);
  /** The last grant's result, with Undo. */
  protected readonly granted = signal<GrantNotice | null>(null);
  /** Ticked rows, by id (bulk Grant and Dismiss). */
  protected readonly selected = signal<ReadonlySet<string>>(new Set());
  /** Bulk Grant includes the ticked sensitive rows (after a confirmation listing them). */
  protected readonly includeSensitive = signal(false);
  protected readonly selectedRows = computed(() => this.warnings().filter((w) => this.selected().has(w.id)));
  protected readonly selectedSensitive = computed(() =>
    this.selectedRows().filter((w) => w.risk?.sensitive && this.grantable(w)),
  );
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  protected readonly filterProxies = computed(() => {
    const proxies = this.directory.value()?.proxies ?? [];
    const appId = this.appId();
    return appId ? proxies.filter((p) => p.appId === appId) : proxies;
  });
  protected readonly selectedProxy = computed(() =>
    this.directory.value()?.proxies.find((p) => p.id === this.proxyId()),
  );
  protected readonly learningProxies = computed(() =>
    (this.directory.value()?.proxies ?? []).filter((p) => isLearning(p.learningUntil)),
  );
  protected readonly counts = computed(() => {
    const list = this.warnings();
    return {
      warnings: list.length,
      calls: list.reduce((sum, w) => sum + w.count, 0),
      open: list.filter((w) => w.status === 'open').length,
      learned: list.filter((w) => w.status === 'learned').length,
    };
  });

  constructor() {
    void this.directory.load();
    effect(() => {
      this.appId();
      this.proxyId();
      this.status();
      this.q();
      this.serverSort();
      untracked(() => {
        this.selected.set(new Set());
        void this.load(true);
      });
    });
    effect(() => {
      const named = this.warnings().some((w) => (w.knownCallers?.length ?? 0) > 0);
      if (named && !untracked(() => this.knownClients.ready() || this.knownClients.loading()))
        untracked(() => void this.knownClients.load());
    });
  }

  protected appName(id: string): string {
    return this.directory.value()?.apps.find((a) => a.id === id)?.name ?? 'App';
  }

  protected proxyName(id: string): string {
    const directory = this.directory.value();
    const proxy = directory?.proxies.find((p) => p.id === id);
    const service = proxy ? directory?.services.get(proxy.serviceId) : undefined;
    return service ? `${service.name} (${service.type})` : 'Proxy';
  }

  /** "3 other known clients call this". */
  protected moreCallers(split: { shown: unknown[]; more: unknown[] }): string {
    const n = split.more.length;
    return `${n} ${split.shown.length > 0 ? 'other ' : ''}known client${n === 1 ? ' calls' : 's call'} this`;
  }

  /** Searches as one types, once typing pauses. */
  protected searchInput(value: string): void {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => void this.setFilter('q', value.trim()), SEARCH_DELAY_MS);
  }

  protected setSort(sort: ServerSort): Promise<void> {
    return this.setFilter('sort', sort.key, sort.direction === 'ascending' ? 'asc' : 'desc');
  }

  protected async setFilter(
    key: 'appId' | 'proxyId' | 'status' | 'q' | 'sort',
    value: string,
    order?: 'asc' | 'desc',
  ): Promise<void> {
    if (key === 'q') clearTimeout(this.searchTimer);
    if (key === 'q' && value === (this.q() ?? '')) return;
    const params: Record<string, string | null> = { [key]: value || null };
    if (key === 'appId') params['proxyId'] = null;
    if (order) params['order'] = order;
    await this.router.navigate([], { queryParams: params, queryParamsHandling: 'merge', replaceUrl: true });
  }

  protected load(fresh: boolean): Promise<void> {
    return this.list.load(fresh);
  }

  /**
   * What a grant adds: the method on the resolved route, else on the sample path (the refused path
   * kept for a folded warning), or on its shape when `scope` is `shape`.
   */
  protected grantTarget(warning: WarningDto, scope: 'path' | 'shape' = 'path'): string {
    const path = warning.route ?? (scope === 'shape' && warning.shape ? warning.shape : warning.path);
    return `${methodLabel(warning.method)} ${path}`;
  }

  /** Whether a folded warning's shape can be granted besides its sample: it names ids or other paths. */
  protected shapeGrantable(warning: WarningDto): boolean {
    const shape = warning.shape;
    return shape !== null && !shape.endsWith('/…') && shape.toLowerCase() !== warning.path.toLowerCase();
  }

  /** A sample cut at 512 characters is no path: only its shape can be granted. */
  protected sampleGrantable(warning: WarningDto): boolean {
    return warning.route !== null || !warning.path.endsWith('…');
  }

  /** Whether a row can be granted at all (not the other-paths row, not rate-limited, not done). */
  protected grantable(warning: WarningDto): boolean {
    return !warning.otherPaths && (warning.status === 'open' || warning.status === 'learned');
  }

  /** A row in words: "GET /api/v3/movie", or "other paths". */
  protected rowLabel(warning: WarningDto): string {
    return warning.otherPaths ? 'other paths' : `${methodLabel(warning.method)} ${warning.path}`;
  }

  protected toggle(warning: WarningDto, on: boolean): void {
    this.selected.update((set) => {
      const next = new Set(set);
      if (on) next.add(warning.id);
      else next.delete(warning.id);
      return next;
    });
  }

  protected toggleAll(on: boolean): void {
    this.selected.set(new Set(on ? this.warnings().map((w) => w.id) : []));
  }

  protected async grant(warning: WarningDto, scope: 'path' | 'shape' = 'path'): Promise<void> {
    const target = this.grantTarget(warning, scope);
    if (!(await confirmGrant(this.confirm, [{ label: target, risk: warning.risk }]))) return;
    this.granted.set(null);
    await this.act(warning.id, async () => {
      const result = await this.api.grant(warning.id, scope === 'shape' ? { scope } : {});
      this.replace(result.warning);
      this.granted.set({ text: `Granted ${target}. ${result.revision.summary.text}`, revisions: [result.revision] });
      return '';
    });
  }

  /**
   * Grants the ticked rows. Sensitive ones go only when "Include sensitive" is ticked and a dialog
   * listing them is confirmed; the server skips the rest and says why.
   */
  protected async grantSelected(): Promise<void> {
    const rows = this.selectedRows();
    if (rows.length === 0) return;
    const sensitive = this.selectedSensitive();
    const include = this.includeSensitive() && sensitive.length > 0;
    if (include) {
      const ok = await this.confirm.ask({
        title: `Grant ${sensitive.length} sensitive call${sensitive.length === 1 ? '' : 's'}?`,
        message:
          'Besides the others ticked, this grants these, each of which hands out secrets or controls the server:',
        items: sensitive.map((w) => `${this.grantTarget(w)}: ${w.risk?.reason ?? ''}`),
        confirmLabel: 'Grant them too',
        danger: true,
      });
      if (!ok) return;
    }
    this.granted.set(null);
    await this.act('bulk', async () => {
      const result = await this.api.grantMany({ ids: rows.map((w) => w.id).slice(0, 100), confirmSensitive: include });
      await this.afterBulk(result.skipped);
      const text = `Granted ${result.done.length} of ${rows.length}.${this.skippedText(rows, result.skipped)}`;
      this.granted.set({ text, revisions: result.revisions });
      return '';
    });
  }

  protected async dismissSelected(): Promise<void> {
    const rows = this.selectedRows();
    if (rows.length === 0) return;
    this.granted.set(null);
    await this.act('bulk', async () => {
      const result = await this.api.dismissMany(rows.map((w) => w.id).slice(0, 100));
      await this.afterBulk(result.skipped);
      return `Dismissed ${result.done.length} of ${rows.length}.${this.skippedText(rows, result.skipped)}`;
    });
  }

  /** " Skipped 2: GET /api/v3/system/backup (sensitive: …); …" */
  private skippedText(rows: readonly WarningDto[], skipped: { id: string; reason: string }[]): string {
    if (skipped.length === 0) return '';
    const byId = new Map(rows.map((w) => [w.id, w]));
    const list = skipped.map((s) => {
      const w = byId.get(s.id);
      return `${w ? this.rowLabel(w) : s.id} (${s.reason})`;
    });
    return ` Skipped ${skipped.length}: ${list.join('; ')}.`;
  }

  private async afterBulk(skipped: { id: string }[]): Promise<void> {
    this.selected.set(new Set(skipped.map((s) => s.id)));
    this.includeSensitive.set(false);
    await this.load(true);
    this.selected.update((set) => new Set([...set].filter((id) => this.warnings().some((w) => w.id === id))));
  }

  /** After an Undo, the list shows the warnings open again. */
  protected undone(): void {
    void this.load(true);
    void this.openWarnings.refresh();
  }

  protected async dismiss(warning: WarningDto): Promise<void> {
    await this.act(warning.id, async () => {
      this.replace(await this.api.dismiss(warning.id));
      return warning.otherPaths ? 'Dismissed the other paths.' : `Dismissed ${this.grantTarget(warning)}.`;
    });
  }

  protected async grantLearned(proxy: ProxyDto): Promise<void> {
    await this.act(proxy.id, async () => {
      const result = await this.proxiesApi.grantLearned(proxy.id);
      await this.load(true);
      return result.granted.length === 0
        ? 'Nothing learned to grant.'
        : `Granted ${result.granted.length} learned route${result.granted.length === 1 ? '' : 's'}: ${result.granted
            .map((g) => `${methodLabel(g.method)} ${g.path}`)
            .join(', ')}.`;
    });
  }

  protected learningChanged(proxy: ProxyDto): void {
    const directory = this.directory.value();
    if (directory) {
      this.directory.set({ ...directory, proxies: directory.proxies.map((p) => (p.id === proxy.id ? proxy : p)) });
    }
  }

  private replace(warning: WarningDto): void {
    this.warnings.update((list) => list.map((w) => (w.id === warning.id ? warning : w)));
  }

  private async act(id: string, action: () => Promise<string>): Promise<void> {
    this.busy.set(id);
    this.message.set(null);
    try {
      const text = await action();
      if (text) this.message.set({ ok: true, text });
    } catch (error) {
      this.message.set({ ok: false, text: describeError(error) });
    } finally {
      this.busy.set(null);
      void this.openWarnings.refresh();
    }
  }
}
