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
  DataColumnDirective,
  DataTableComponent,
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
    DataTableComponent,
    DataColumnDirective,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-page-header title="Apps" description="One app per client integration, each with its own keys and allowlists.">
      @if (!creating()) {
        <button type="button" class="primary" *arbCan="'editor'" (click)="creating.set(true)">New app</button>
      }
    </arb-page-header>
    @if (creating()) {
      <arb-app-form
        [templates]="templates.value() ?? []"
        [templatesError]="templates.error()"
        (saved)="created($event)"
        (closed)="creating.set(false)"
      />
    }
    <form
      class="card pad form-grid"
      role="search"
      aria-label="Find apps"
      (submit)="$event.preventDefault(); search(searchDraft(), true)"
    >
      <div class="field">
        <label for="apps-search">Search apps</label>
        <input
          id="apps-search"
          type="search"
          placeholder="Name or slug"
          autocomplete="off"
          maxlength="100"
          [value]="searchDraft()"
          (input)="search($any($event.target).value, false)"
        />
      </div>
      <div class="field">
        <label for="apps-template">Filter by template</label>
        <select id="apps-template" (change)="setFilter('templateId', $any($event.target).value)">
          <option value="" [selected]="!templateFilter()">Any template</option>
          <option [value]="noTemplate" [selected]="templateFilter() === noTemplate">No template</option>
          @for (t of templates.value() ?? []; track t.id) {
            <option [value]="t.id" [selected]="t.id === templateFilter()">
              {{ t.name }}{{ t.removed ? ' (removed)' : '' }}
            </option>
          }
        </select>
      </div>
      <div class="field">
        <label for="apps-state">Filter by state</label>
        <select id="apps-state" (change)="setFilter('state', $any($event.target).value)">
          <option value="" [selected]="!stateFilter()">Any state</option>
          <option value="active" [selected]="stateFilter() === 'active'">Active</option>
          <option value="inactive" [selected]="stateFilter() === 'inactive'">Inactive</option>
        </select>
      </div>
    </form>
    @if (removing.error(); as m) {
      <p class="error" role="alert">{{ m }}</p>
    }
    <arb-load-state [loading]="list.loading()" [error]="list.error()" (retry)="list.load(true)" />
    <p class="visually-hidden" aria-live="polite">{{ status() }}</p>
    @if (list.loaded() && apps().length === 0) {
      @if (filtered()) {
        <arb-empty-state
          card
          message="No apps match these filters."
          actionLabel="Clear search and filters"
          (action)="clearFilters()"
        />
      } @else {
        <arb-empty-state card message="No apps yet. Create one for each client integration." />
      }
    } @else if (apps().length > 0) {
      <arb-data-table class="card table-wrap" label="Apps" [rows]="apps()" [trackBy]="byId">
        <ng-template arbColumn="Name" [of]="apps()" let-app>
          <a [routerLink]="['/apps', app.id]">{{ app.name }}</a>
        </ng-template>
        <ng-template arbColumn="Slug" [of]="apps()" let-app>
          <code>{{ app.slug }}</code>
        </ng-template>
        <ng-template arbColumn="Template" [of]="apps()" let-app>{{ app.templateName ?? 'No template' }}</ng-template>
        <ng-template arbColumn="State" [of]="apps()" let-app>
          <span class="badge" [class.ok]="app.active">{{ app.active ? 'Active' : 'Inactive' }}</span>
        </ng-template>
        <ng-template arbColumn="Proxies" [of]="apps()" let-app>{{ app.proxyCount }}</ng-template>
        <ng-template arbColumn="Actions" hiddenHeader cellClass="actions" [of]="apps()" let-app>
          <button type="button" class="small danger" *arbCan="'editor'" (click)="remove(app)">Delete</button>
        </ng-template>
      </arb-data-table>
      @if (list.nextCursor()) {
        <p><button type="button" (click)="list.load(false)" [disabled]="list.loading()">Load more</button></p>
      }
    }
  `,
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
