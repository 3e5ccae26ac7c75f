import {
  ChangeDetectionStrategy,
  Component,
  computed,
  DestroyRef,
  effect,
  inject,
  input,
  OnInit,
  signal,
  untracked,
} from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import type { AppDto, AppState } from '@arrbiter/contracts';
import { CanDirective } from '../../core/can.directive';
import { Loadable } from '../../core/loadable';
import { PagedList } from '../../core/paged-list';
import { TemplatesApiService } from '../templates/templates-api.service';
import { AppFormComponent } from './app-form.component';
import { AppsApiService } from './apps-api.service';
import {
  busyAction,
  ConfirmService,
  DATA_TABLE,
  EmptyStateComponent,
  LoadStateComponent,
  PageHeaderComponent,
} from '@arrbiter/dashboard/ui';

export const APP_STATES: readonly AppState[] = ['active', 'inactive'];

/** `templateId=none`: apps without a template. */
export const NO_TEMPLATE = 'none';

/** How long typing pauses before the search runs. */
export const SEARCH_DELAY_MS = 300;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Apps, a page at a time, searched by name or slug and filtered by template and state (kept in the URL). */
@Component({
  selector: 'arb-apps-page',
  imports: [
    CanDirective,
    LoadStateComponent,
    AppFormComponent,
    RouterLink,
    PageHeaderComponent,
    EmptyStateComponent,
    DATA_TABLE,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './apps.page.html',
})
export class AppsPage implements OnInit {
  private readonly api = inject(AppsApiService);
  private readonly templatesApi = inject(TemplatesApiService);
  private readonly confirm = inject(ConfirmService);
  private readonly router = inject(Router);

  /** Search and filters, from the query string (so that a reload or a link keeps them). */
  readonly q = input<string>();
  readonly templateId = input<string>();
  readonly state = input<string>();
  /** `?create=1`: opens the new-app form (the connect flow's "Other / not listed"). */
  readonly create = input<string>();

  protected readonly noTemplate = NO_TEMPLATE;
  /** The template filter, when it is one the server takes (a template id or `none`). */
  protected readonly templateFilter = computed(() => {
    const id = this.templateId();
    return id === NO_TEMPLATE || (id && UUID.test(id)) ? id : undefined;
  });
  protected readonly stateFilter = computed(() => APP_STATES.find((s) => s === this.state()));
  protected readonly filtered = computed(() => !!(this.q()?.trim() || this.templateFilter() || this.stateFilter()));
  /** What the search box shows: what was typed, before the search runs. */
  protected readonly searchDraft = signal('');
  protected readonly list = new PagedList<AppDto>((cursor) =>
    this.api.list({
      q: this.q()?.trim() || undefined,
      templateId: this.templateFilter(),
      state: this.stateFilter(),
      limit: 50,
      cursor: cursor ?? undefined,
    }),
  );
  protected readonly apps = this.list.items;
  protected readonly templates = new Loadable(() => this.templatesApi.list());
  protected readonly creating = signal(false);
  protected readonly removing = busyAction();
  protected readonly byId = (app: AppDto) => app.id;
  /** Read out when a search or filter has answered. */
  protected readonly status = computed(() => {
    if (!this.list.loaded() || this.list.loading()) return '';
    const n = this.apps().length;
    const more = this.list.nextCursor() ? ' so far, more to load' : '';
    if (n === 0) return this.filtered() ? 'No apps match.' : 'No apps yet.';
    return `${n} app${n === 1 ? '' : 's'} shown${more}.`;
  });
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    effect(() => {
      const q = this.q() ?? '';
      this.templateFilter();
      this.stateFilter();
      untracked(() => {
        if (q.trim() !== this.searchDraft().trim()) this.searchDraft.set(q);
        void this.list.load(true);
      });
    });
    inject(DestroyRef).onDestroy(() => clearTimeout(this.searchTimer));
  }

  ngOnInit(): void {
    if (this.create()) this.creating.set(true);
    void this.templates.load();
  }

  /** Searches once typing pauses (`now`: at once, on Enter). */
  protected search(value: string, now: boolean): void {
    this.searchDraft.set(value);
    clearTimeout(this.searchTimer);
    const run = () => void this.setFilter('q', value.trim());
    if (now) run();
    else this.searchTimer = setTimeout(run, SEARCH_DELAY_MS);
  }

  protected async setFilter(key: 'q' | 'templateId' | 'state', value: string): Promise<void> {
    await this.router.navigate([], {
      queryParams: { [key]: value || null },
      queryParamsHandling: 'merge',
      replaceUrl: true,
    });
  }

  protected async clearFilters(): Promise<void> {
    clearTimeout(this.searchTimer);
    this.searchDraft.set('');
    await this.router.navigate([], {
      queryParams: { q: null, templateId: null, state: null },
      queryParamsHandling: 'merge',
      replaceUrl: true,
    });
  }

  protected async created(app: AppDto): Promise<void> {
    this.creating.set(false);
    await this.router.navigate(['/apps', app.id]);
  }

  protected async remove(app: AppDto): Promise<void> {
    this.removing.clear();
    const ok = await this.confirm.ask({
      title: `Delete ${app.name}?`,
      message: `Its ${app.proxyCount} prox${app.proxyCount === 1 ? 'y stops' : 'ies stop'} working at once and their keys are gone.`,
      confirmLabel: 'Delete app',
      danger: true,
    });
    if (!ok) return;
    const outcome = await this.removing.run(() => this.api.remove(app.id));
    if (outcome.ok) this.apps.update((list) => list.filter((a) => a.id !== app.id));
  }
}
