import { ChangeDetectionStrategy, Component, effect, inject, input, signal, untracked } from '@angular/core';
import { PagedList } from '../../core/paged-list';
import { Router, RouterLink } from '@angular/router';
import { CHANGE_OBJECT_TYPES, ChangeDto, ChangeObjectType } from '@arrbiter/contracts';
import { changeLink } from './change-link';
import { ChangesApiService } from './changes-api.service';
import {
  DATA_TABLE,
  EmptyStateComponent,
  LoadStateComponent,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';

export const OBJECT_TYPES: readonly ChangeObjectType[] = CHANGE_OBJECT_TYPES;

/** The audit trail, newest first, with filters and links to the changed objects. */
@Component({
  selector: 'arb-changes-page',
  imports: [LoadStateComponent, TimeComponent, RouterLink, PageHeaderComponent, EmptyStateComponent, DATA_TABLE],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-page-header
      title="Recent changes"
      description="Every change by an administrator or by Arrbiter itself, newest first."
    >
      <button type="button" (click)="load(true)" [disabled]="loading()">Refresh</button>
    </arb-page-header>
    <form
      class="card pad form-grid"
      role="search"
      aria-label="Filter changes"
      (submit)="$event.preventDefault(); setFilter('actor', actorDraft())"
    >
      <div class="field">
        <label for="changes-type">Object</label>
        <select id="changes-type" (change)="setFilter('objectType', $any($event.target).value)">
          <option value="" [selected]="!objectType()">Everything</option>
          @for (t of types; track t) {
            <option [value]="t" [selected]="t === objectType()">{{ t }}</option>
          }
        </select>
      </div>
      <div class="field">
        <label for="changes-actor">Actor</label>
        <input
          id="changes-actor"
          type="search"
          placeholder="admin or system"
          [value]="actorDraft()"
          (input)="actorDraft.set($any($event.target).value)"
          (change)="setFilter('actor', actorDraft())"
        />
      </div>
      <div class="field">
        <label class="check" for="changes-sign-ins">
          <input
            id="changes-sign-ins"
            type="checkbox"
            [checked]="showSignIns()"
            (change)="setFilter('signIns', $any($event.target).checked ? 'true' : '')"
          />
          Show sign-ins
        </label>
      </div>
    </form>
    <arb-load-state [loading]="loading()" [error]="error()" (retry)="load(true)" />
    @if (loaded() && changes().length === 0) {
      <arb-empty-state card message="No changes match." />
    } @else if (changes().length > 0) {
      <arb-data-table class="card table-wrap" label="Changes" [rows]="changes()" [trackBy]="byId">
        <ng-template arbColumn="When" [of]="changes()" let-c>
          <arb-time [value]="c.at" />
        </ng-template>
        <ng-template arbColumn="Who" [of]="changes()" let-c
          ><span class="long-name">{{ c.actor }}</span></ng-template
        >
        <ng-template arbColumn="What" [of]="changes()" let-c>
          <span class="long-name">{{ c.summary }}</span>
          <div class="hint">
            <code>{{ c.action }}</code>
          </div>
        </ng-template>
        <ng-template arbColumn="Object" [of]="changes()" let-c>
          @let target = link(c);
          <span class="badge">{{ c.objectType }}</span>
          @if (target) {
            <a
              class="long-name"
              [routerLink]="target.commands"
              [queryParams]="target.queryParams"
              [title]="c.objectName ?? ''"
              >{{ c.objectName ?? 'Open' }}</a
            >
          } @else {
            <span class="long-name" [title]="c.objectName ?? ''">{{ c.objectName }}</span>
          }
        </ng-template>
      </arb-data-table>
      @if (nextCursor()) {
        <p><button type="button" (click)="load(false)" [disabled]="loading()">Load more</button></p>
      }
    }
  `,
})
export class ChangesPage {
  protected readonly byId = (c: ChangeDto) => c.id;
  private readonly api = inject(ChangesApiService);
  private readonly router = inject(Router);
  readonly objectType = input<string>();
  readonly actor = input<string>();
  /** `?signIns=true` shows sign-ins and sign-outs, which are left out by default (they flood the list). */
  readonly signIns = input<string>();
  protected readonly showSignIns = () => this.signIns() === 'true' || this.objectType() === 'session';
  protected readonly types = OBJECT_TYPES;
  protected readonly link = changeLink;
  protected readonly actorDraft = signal('');
  protected readonly list = new PagedList<ChangeDto>((cursor) =>
    this.api.list({
      objectType: OBJECT_TYPES.find((t) => t === this.objectType()),
      actor: this.actor(),
      signIns: this.showSignIns() ? undefined : false,
      limit: 50,
      cursor,
    }),
  );
  protected readonly changes = this.list.items;
  protected readonly nextCursor = this.list.nextCursor;
  protected readonly loading = this.list.loading;
  protected readonly loaded = this.list.loaded;
  protected readonly error = this.list.error;

  constructor() {
    effect(() => {
      this.objectType();
      this.signIns();
      const actor = this.actor() ?? '';
      untracked(() => {
        this.actorDraft.set(actor);
        void this.load(true);
      });
    });
  }

  protected async setFilter(key: 'objectType' | 'actor' | 'signIns', value: string): Promise<void> {
    await this.router.navigate([], {
      queryParams: { [key]: value.trim() || null },
      queryParamsHandling: 'merge',
      replaceUrl: true,
    });
  }

  protected load(fresh: boolean): Promise<void> {
    return this.list.load(fresh);
  }
}
