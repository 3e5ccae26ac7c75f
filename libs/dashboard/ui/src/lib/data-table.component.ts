import {
  booleanAttribute,
  ChangeDetectionStrategy,
  Component,
  computed,
  contentChild,
  contentChildren,
  Directive,
  effect,
  inject,
  input,
  output,
  signal,
  TemplateRef,
  untracked,
} from '@angular/core';
import { NgTemplateOutlet } from '@angular/common';

/** What a column's cell template gets: the row (`let-row`) and its index in the whole list. */
export interface DataCellContext<T> {
  $implicit: T;
  index: number;
}

/** A value a column sorts by (text sorts by locale, numbers and dates by value; null sorts last). */
export type SortValue = string | number | Date | null | undefined;

/**
 * One column of an `arb-data-table`: `<ng-template arbColumn="Name" let-app>…</ng-template>`,
 * with `hiddenHeader`, `cellClass`, `sortBy` and `[of]` (the rows, to type `let-app`) as needed.
 * The directive's value is the header (also the cell's `data-label` in the narrow, stacked layout).
 */
@Directive({ selector: 'ng-template[arbColumn]' })
export class DataColumnDirective<T = unknown> {
  readonly header = input.required<string>({ alias: 'arbColumn' });
  /** Header read out but not shown (an actions column); the cell then stacks without a label. */
  readonly hiddenHeader = input(false, { transform: booleanAttribute });
  /** Classes of each cell (`actions` for a row's buttons). */
  readonly cellClass = input<string>('');
  /** Makes the column sortable: the header becomes a button, the cell keeps its template. */
  readonly sortBy = input<((row: T) => SortValue) | undefined>();
  /**
   * Makes the column sortable by the server: the header button emits the table's `sortChange` with
   * this key, and the rows stay in the order given (the table's `sorted` input says which is sorted).
   */
  readonly sortKey = input<string | undefined>();
  /** Rows only for template type-checking: `[of]="apps()"` types `let-app`. */
  readonly of = input<readonly T[]>();
  readonly template = inject<TemplateRef<DataCellContext<T>>>(TemplateRef);

  static ngTemplateContextGuard<T>(_dir: DataColumnDirective<T>, _ctx: unknown): _ctx is DataCellContext<T> {
    return true;
  }
}

/**
 * A row's detail (an edit form) in a full-width row of its own under it, shown while the table's
 * `detailOpen(row)` is true: `<ng-template arbRowDetail let-service>…</ng-template>`.
 */
@Directive({ selector: 'ng-template[arbRowDetail]' })
export class DataRowDetailDirective<T = unknown> {
  /** Rows only for template type-checking, as on a column. */
  readonly of = input<readonly T[]>();
  readonly template = inject<TemplateRef<DataCellContext<T>>>(TemplateRef);

  static ngTemplateContextGuard<T>(_dir: DataRowDetailDirective<T>, _ctx: unknown): _ctx is DataCellContext<T> {
    return true;
  }
}

/** What the table body says when there are no rows: `<ng-template arbTableEmpty>Nothing yet.</ng-template>`. */
@Directive({ selector: 'ng-template[arbTableEmpty]' })
export class DataTableEmptyDirective {
  readonly template = inject(TemplateRef);
}

type Direction = 'ascending' | 'descending';

/** A server-side order: a column's `sortKey` and its direction. */
export interface ServerSort {
  key: string;
  direction: Direction;
}

function compare(a: SortValue, b: SortValue): number {
  if (a == null || b == null) return a == null ? (b == null ? 0 : 1) : -1;
  if (typeof a === 'string' && typeof b === 'string') return a.localeCompare(b, undefined, { numeric: true });
  return Number(a) - Number(b);
}

/**
 * A table from column templates: the table markup (scope, `data-label` for the stacked layout under
 * 720 px), optional sorting (real buttons in the headers, `aria-sort` on the sorted one) and optional
 * paging (`pageSize`: Previous/Next and a "Page n of m" status). Name it with `label`, `labelledBy`
 * or a `caption`. Classes on the element frame it (`card table-wrap`, or `table-wrap` inside a card).
 */
@Component({
  selector: 'arb-data-table',
  imports: [NgTemplateOutlet],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './data-table.component.html',
  styles: `
    :host {
      display: block;
    }
    .sort {
      all: unset;
      cursor: pointer;
      display: inline-flex;
      align-items: center;
      gap: 0.25rem;
      font: inherit;
      color: inherit;
    }
    .sort:focus-visible {
      outline: 2px solid var(--focus, currentColor);
      outline-offset: 2px;
    }
    .pager {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: flex-end;
      gap: 0.5rem;
      padding: 0.5rem 0.75rem;
    }
  `,
})
export class DataTableComponent<T> {
  readonly rows = input.required<readonly T[]>();
  /** Identity of a row, for `@for`'s track (an id); the row itself by default. */
  readonly trackBy = input<(row: T) => unknown>((row) => row);
  readonly label = input<string>();
  readonly labelledBy = input<string>();
  readonly caption = input<string>();
  /** The caption names the table for screen readers only. */
  readonly hiddenCaption = input(false, { transform: booleanAttribute });
  /** Stacks the cells under 720 px, each with its header as a label (on by default). */
  readonly responsive = input(true);
  /** A `data-testid` for each row. */
  readonly rowTestId = input<(row: T) => string | null>(() => null);
  /** Whether a row's `arbRowDetail` row shows. */
  readonly detailOpen = input<(row: T) => boolean>(() => false);
  /** Rows a page; none (the default) shows every row. */
  readonly pageSize = input<number | null>(null);
  /** The server-side order the rows come in (columns with a `sortKey`). */
  readonly serverSort = input<ServerSort | null>(null);
  /** A `sortKey` column's header was pressed: the order asked for (descending first). */
  readonly sortChange = output<ServerSort>();

  protected readonly columns = contentChildren(DataColumnDirective);
  protected readonly detail = contentChild(DataRowDetailDirective);
  protected readonly empty = contentChild(DataTableEmptyDirective);
  protected readonly sort = signal<{ column: number; direction: Direction } | null>(null);
  protected readonly page = signal(0);

  protected readonly sorted = computed(() => {
    const rows = this.rows();
    const sort = this.sort();
    const by = sort ? this.columns()[sort.column]?.sortBy() : undefined;
    if (!sort || !by) return rows.map((row, index) => ({ row, index }));
    const sign = sort.direction === 'ascending' ? 1 : -1;
    return rows
      .map((row, index) => ({ row, index, key: by(row as never) }))
      .sort((a, b) => sign * compare(a.key, b.key) || a.index - b.index);
  });
  protected readonly pageCount = computed(() => {
    const size = this.pageSize();
    return size ? Math.max(1, Math.ceil(this.rows().length / size)) : 1;
  });
  protected readonly shown = computed(() => {
    const size = this.pageSize();
    const rows = this.sorted();
    if (!size) return rows;
    const start = Math.min(this.page(), this.pageCount() - 1) * size;
    return rows.slice(start, start + size);
  });

  constructor() {
    // A shorter list (a filter, a deletion) never leaves the table on a page past its end.
    effect(() => {
      const last = this.pageCount() - 1;
      untracked(() => {
        if (this.page() > last) this.page.set(last);
      });
    });
  }

  protected ariaSort(column: number): Direction | 'none' | null {
    const key = this.columns()[column]?.sortKey();
    if (key) {
      const server = this.serverSort();
      return server?.key === key ? server.direction : 'none';
    }
    if (!this.columns()[column]?.sortBy()) return null;
    const sort = this.sort();
    return sort?.column === column ? sort.direction : 'none';
  }

  protected toggleSort(column: number): void {
    const key = this.columns()[column]?.sortKey();
    if (key) {
      const server = this.serverSort();
      this.sortChange.emit({
        key,
        direction: server?.key === key && server.direction === 'descending' ? 'ascending' : 'descending',
      });
      return;
    }
    const sort = this.sort();
    this.sort.set({
      column,
      direction: sort?.column === column && sort.direction === 'ascending' ? 'descending' : 'ascending',
    });
    this.page.set(0);
  }

  protected track(item: { row: T; index: number }): unknown {
    return this.trackBy()(item.row);
  }
}

/** Everything a page imports to write a data table: `imports: [DATA_TABLE]`. */
export const DATA_TABLE = [
  DataTableComponent,
  DataColumnDirective,
  DataRowDetailDirective,
  DataTableEmptyDirective,
] as const;
