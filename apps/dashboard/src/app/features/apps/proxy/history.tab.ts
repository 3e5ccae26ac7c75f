import { ChangeDetectionStrategy, Component, effect, inject, signal, untracked } from '@angular/core';
import { PagedList } from '../../../core/paged-list';
import type { RevisionDiffResponse, RevisionDto, RevisionKind } from '@arrbiter/contracts';
import { CanDirective } from '../../../core/can.directive';
import { ProxiesApiService } from '../proxies-api.service';
import { ProxyContext } from './proxy-context';
import {
  busyAction,
  ConfirmService,
  describeError,
  EmptyStateComponent,
  LoadStateComponent,
  MethodBadgeComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';

const KIND_LABELS: Record<RevisionKind, string> = {
  manual: 'Manual edit',
  'warning-grant': 'Granted from a warning',
  'template-sync': 'Template sync',
  restore: 'Restore',
  import: 'Configuration import',
  'client-fit': 'Fitted to a known client',
  created: 'Created',
  undo: 'Undo of a grant',
};

/** The proxy's revisions, each comparable with the current configuration and restorable. */
@Component({
  selector: 'arb-history-tab',
  imports: [CanDirective, LoadStateComponent, TimeComponent, MethodBadgeComponent, EmptyStateComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-load-state [loading]="loading()" [error]="error()" (retry)="load(true)" />
    @if (action.notice(); as m) {
      <p [class]="m.ok ? 'success' : 'error'" [attr.role]="m.ok ? 'status' : 'alert'">{{ m.text }}</p>
    }
    @if (loaded() && revisions().length === 0) {
      <arb-empty-state card message="No revisions yet: saving the configuration records the first one." />
    }
    <ol class="revisions">
      @for (r of revisions(); track r.id; let first = $first) {
        <li class="card pad">
          <div class="row">
            <span class="badge accent">{{ kind(r.kind) }}</span>
            @if (first) {
              <span class="badge ok">Current</span>
            }
            <strong class="grow">{{ r.summary.text }}</strong>
            <span class="muted">{{ r.author }} · <arb-time [value]="r.createdAt" /></span>
          </div>
          @if (r.summary.active; as a) {
            <p class="hint">Active: {{ a.from ? 'on' : 'off' }} → {{ a.to ? 'on' : 'off' }}</p>
          }
          <div class="form-actions">
            <button
              type="button"
              class="small"
              (click)="compare(r)"
              [attr.aria-expanded]="diff()?.revision?.id === r.id"
            >
              {{ diff()?.revision?.id === r.id ? 'Hide comparison' : 'Compare with current' }}
            </button>
            <button type="button" class="small" *arbCan="'editor'" (click)="restore(r)" [disabled]="action.busy()">
              Restore
            </button>
          </div>
          @if (diffLoading() === r.id) {
            <p class="muted" role="status">Comparing…</p>
          }
          @if (diff(); as d) {
            @if (d.revision.id === r.id) {
              <div class="diff" aria-label="What restoring this revision would change">
                @if (d.added.length + d.removed.length === 0 && d.revision.active === d.current.active) {
                  <p class="hint">Same as the current configuration.</p>
                } @else {
                  <p class="hint">Restoring it would change:</p>
                }
                @if (d.revision.active !== d.current.active) {
                  <div>Active: {{ d.current.active ? 'on' : 'off' }} → {{ d.revision.active ? 'on' : 'off' }}</div>
                }
                @for (g of d.added; track g.method + g.path) {
                  <div class="add">
                    + <arb-method-badge [method]="g.method" />&ngsp;<code>{{ g.path }}</code>
                  </div>
                }
                @for (g of d.removed; track g.method + g.path) {
                  <div class="del">
                    − <arb-method-badge [method]="g.method" />&ngsp;<code>{{ g.path }}</code>
                  </div>
                }
              </div>
            }
          }
        </li>
      }
    </ol>
    @if (nextCursor()) {
      <button type="button" (click)="load(false)" [disabled]="loading()">Load more</button>
    }
  `,
  styles: `
    .revisions {
      list-style: none;
      padding: 0;
      margin: 0 0 1rem;
      display: grid;
      gap: 0.5rem;
    }
    .diff {
      margin-top: 0.5rem;
      padding: 0.5rem 0.75rem;
      background: var(--hover);
      border-radius: 0.5rem;
    }
    .add {
      color: var(--ok);
    }
    .del {
      color: var(--danger);
    }
  `,
})
export class HistoryTab {
  private readonly api = inject(ProxiesApiService);
  private readonly confirm = inject(ConfirmService);
  private readonly context = inject(ProxyContext);
  protected readonly list = new PagedList<RevisionDto>((cursor) =>
    this.api.revisions(this.context.proxyId(), { limit: 20, cursor }),
  );
  protected readonly revisions = this.list.items;
  protected readonly nextCursor = this.list.nextCursor;
  protected readonly loading = this.list.loading;
  protected readonly loaded = this.list.loaded;
  protected readonly error = this.list.error;
  protected readonly diff = signal<RevisionDiffResponse | null>(null);
  protected readonly diffLoading = signal<string | null>(null);
  protected readonly action = busyAction();

  constructor() {
    effect(() => {
      if (this.context.proxyId()) untracked(() => void this.load(true));
    });
  }

  protected kind(kind: RevisionKind): string {
    return KIND_LABELS[kind] ?? kind;
  }

  protected load(fresh: boolean): Promise<void> {
    return this.list.load(fresh);
  }

  protected async compare(revision: RevisionDto): Promise<void> {
    if (this.diff()?.revision.id === revision.id) {
      this.diff.set(null);
      return;
    }
    this.diffLoading.set(revision.id);
    this.action.clear();
    try {
      this.diff.set(await this.api.revisionDiff(this.context.proxyId(), revision.id));
    } catch (error) {
      this.action.say({ ok: false, text: describeError(error) });
    } finally {
      this.diffLoading.set(null);
    }
  }

  protected async restore(revision: RevisionDto): Promise<void> {
    const ok = await this.confirm.ask({
      title: 'Restore this revision?',
      message: `The proxy's overrides and active state become those of “${revision.summary.text}” (${new Date(revision.createdAt).toLocaleString()}), over the current template. Keys and templates are not touched.`,
      confirmLabel: 'Restore',
    });
    if (!ok) return;
    const outcome = await this.action.run(
      () => this.api.restoreRevision(this.context.proxyId(), revision.id),
      (restored) => `Restored: ${restored.summary.text}`,
    );
    if (!outcome.ok) return;
    this.diff.set(null);
    this.context.update({ active: outcome.value.active });
    await this.load(true);
  }
}
