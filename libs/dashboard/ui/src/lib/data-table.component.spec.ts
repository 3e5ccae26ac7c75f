import { Component, signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  DataColumnDirective,
  DataRowDetailDirective,
  DataTableComponent,
  DataTableEmptyDirective,
  type ServerSort,
} from './data-table.component';

interface Row {
  id: string;
  name: string;
  count: number;
}

const ROWS: Row[] = [
  { id: 'a', name: 'Beta', count: 2 },
  { id: 'b', name: 'alpha', count: 10 },
  { id: 'c', name: 'Gamma', count: 1 },
];

@Component({
  imports: [DataTableComponent, DataColumnDirective, DataRowDetailDirective],
  template: `
    <arb-data-table
      label="Apps"
      [rows]="rows()"
      [trackBy]="byId"
      [rowTestId]="testId"
      [pageSize]="pageSize()"
      [detailOpen]="isOpen"
    >
      <ng-template arbColumn="Name" [of]="rows()" [sortBy]="byName" let-row>
        <strong>{{ row.name }}</strong>
      </ng-template>
      <ng-template arbColumn="Count" [of]="rows()" [sortBy]="byCount" let-row>{{ row.count }}</ng-template>
      <ng-template arbColumn="Actions" hiddenHeader cellClass="actions" let-row let-i="index">
        <button type="button">Delete {{ i }}</button>
      </ng-template>
      <ng-template arbRowDetail [of]="rows()" let-row
        ><form aria-label="Edit">{{ row.name }}</form></ng-template
      >
    </arb-data-table>
  `,
})
class HostComponent {
  readonly rows = signal(ROWS);
  readonly pageSize = signal<number | null>(null);
  readonly byId = (row: Row) => row.id;
  readonly byName = (row: Row) => row.name;
  readonly byCount = (row: Row) => row.count;
  readonly testId = (row: Row) => `row-${row.id}`;
  readonly open = signal<string | null>(null);
  readonly isOpen = (row: Row) => this.open() === row.id;
}

@Component({
  imports: [DataTableComponent, DataColumnDirective, DataTableEmptyDirective],
  template: `
    <arb-data-table caption="Recent deliveries" hiddenCaption [rows]="[]">
      <ng-template arbColumn="When">-</ng-template>
      <ng-template arbColumn="Event">-</ng-template>
      @if (loaded) {
        <ng-template arbTableEmpty>Nothing sent yet.</ng-template>
      }
    </arb-data-table>
  `,
})
class CaptionHostComponent {
  loaded = true;
}

/** Rows sorted by the server: the headers ask, the rows stay as given. */
@Component({
  imports: [DataTableComponent, DataColumnDirective],
  template: `
    <arb-data-table
      label="Warnings"
      [rows]="rows"
      [serverSort]="sort()"
      (sortChange)="asked.push($event); sort.set($event)"
    >
      <ng-template arbColumn="Name" sortKey="name" let-row>{{ row.name }}</ng-template>
      <ng-template arbColumn="Count" sortKey="count" let-row>{{ row.count }}</ng-template>
    </arb-data-table>
  `,
})
class ServerSortHostComponent {
  readonly rows = ROWS;
  readonly sort = signal<ServerSort | null>({ key: 'count', direction: 'descending' });
  readonly asked: ServerSort[] = [];
}

describe('DataTableComponent', () => {
  function render() {
    const fixture = TestBed.createComponent(HostComponent);
    fixture.detectChanges();
    const el = fixture.nativeElement as HTMLElement;
    const names = () => [...el.querySelectorAll('tbody tr td:first-child')].map((td) => td.textContent?.trim());
    const header = (n: number) => el.querySelectorAll('th')[n] as HTMLElement;
    return { fixture, el, names, header };
  }

  it('lays the rows out with named, scoped columns and labelled cells', () => {
    const { el, names, header } = render();
    const table = el.querySelector('table') as HTMLTableElement;
    expect(table.getAttribute('aria-label')).toBe('Apps');
    expect(table.classList).toContain('responsive');
    expect([...el.querySelectorAll('th')].map((th) => th.getAttribute('scope'))).toEqual(['col', 'col', 'col']);
    expect(names()).toEqual(['Beta', 'alpha', 'Gamma']);
    const cells = el.querySelectorAll('tbody tr:first-child td');
    expect(cells[0].getAttribute('data-label')).toBe('Name');
    expect(cells[2].getAttribute('data-label')).toBeNull();
    expect(cells[2].classList).toContain('actions');
    expect(cells[2].textContent?.trim()).toBe('Delete 0');
    expect(header(2).querySelector('.visually-hidden')?.textContent).toBe('Actions');
    expect(header(2).hasAttribute('aria-sort')).toBe(false);
    expect(el.querySelector('tbody tr')?.getAttribute('data-testid')).toBe('row-a');
  });

  it('sorts by a column from a real button in its header and says so with aria-sort', () => {
    const { fixture, names, header } = render();
    expect(header(0).getAttribute('aria-sort')).toBe('none');
    const button = header(0).querySelector('button') as HTMLButtonElement;
    expect(button.type).toBe('button');
    expect(button.textContent).toContain('Name');

    button.click();
    fixture.detectChanges();
    expect(header(0).getAttribute('aria-sort')).toBe('ascending');
    expect(names()).toEqual(['alpha', 'Beta', 'Gamma']);

    button.click();
    fixture.detectChanges();
    expect(header(0).getAttribute('aria-sort')).toBe('descending');
    expect(names()).toEqual(['Gamma', 'Beta', 'alpha']);

    (header(1).querySelector('button') as HTMLButtonElement).click();
    fixture.detectChanges();
    expect(header(0).getAttribute('aria-sort')).toBe('none');
    expect(header(1).getAttribute('aria-sort')).toBe('ascending');
    expect(names()).toEqual(['Gamma', 'Beta', 'alpha']);
    // The index a cell gets is the row's place in the list given, not on the screen.
    expect(fixture.nativeElement.querySelector('tbody tr:first-child td.actions').textContent.trim()).toBe('Delete 2');
  });

  it('leaves the order to the server with sortKey: the header asks, aria-sort follows serverSort', () => {
    const fixture = TestBed.createComponent(ServerSortHostComponent);
    fixture.detectChanges();
    const element = fixture.nativeElement as HTMLElement;
    const headers = () => [...element.querySelectorAll('th')].map((th) => th.getAttribute('aria-sort'));
    const names = () => [...element.querySelectorAll('tbody tr td:first-child')].map((td) => td.textContent?.trim());
    expect(headers()).toEqual(['none', 'descending']);
    (element.querySelectorAll('th button')[1] as HTMLButtonElement).click();
    fixture.detectChanges();
    (element.querySelectorAll('th button')[0] as HTMLButtonElement).click();
    fixture.detectChanges();
    expect(fixture.componentInstance.asked).toEqual([
      { key: 'count', direction: 'ascending' },
      { key: 'name', direction: 'descending' },
    ]);
    expect(headers()).toEqual(['descending', 'none']);
    // The rows stay in the order given.
    expect(names()).toEqual(['Beta', 'alpha', 'Gamma']);
  });

  it("shows a row's detail in a full-width row under it while it is open", () => {
    const { fixture, el } = render();
    expect(el.querySelectorAll('tbody tr')).toHaveLength(3);
    fixture.componentInstance.open.set('b');
    fixture.detectChanges();
    const rows = el.querySelectorAll('tbody tr');
    expect(rows).toHaveLength(4);
    const cell = rows[2].querySelector('td') as HTMLTableCellElement;
    expect(cell.colSpan).toBe(3);
    expect(cell.querySelector('form')?.textContent).toBe('alpha');
  });

  it('names the table with a caption, for screen readers only if asked, and says when it has no rows', () => {
    const fixture = TestBed.createComponent(CaptionHostComponent);
    fixture.detectChanges();
    const el = fixture.nativeElement as HTMLElement;
    const caption = el.querySelector('caption') as HTMLElement;
    expect(caption.textContent?.trim()).toBe('Recent deliveries');
    expect(caption.classList).toContain('visually-hidden');
    const cell = el.querySelector('tbody td') as HTMLTableCellElement;
    expect(cell.colSpan).toBe(2);
    expect(cell.textContent?.trim()).toBe('Nothing sent yet.');
  });

  it('pages the rows with Previous and Next, and never stays past the last page', () => {
    const { fixture, el, names } = render();
    expect(el.querySelector('nav')).toBeNull();
    fixture.componentInstance.pageSize.set(2);
    fixture.detectChanges();
    const nav = el.querySelector('nav') as HTMLElement;
    expect(nav.getAttribute('aria-label')).toBe('Apps pages');
    const [previous, next] = [...nav.querySelectorAll('button')] as HTMLButtonElement[];
    expect(previous.disabled).toBe(true);
    expect(nav.querySelector('[role=status]')?.textContent).toBe('Page 1 of 2');
    expect(names()).toEqual(['Beta', 'alpha']);

    next.click();
    fixture.detectChanges();
    expect(names()).toEqual(['Gamma']);
    expect(next.disabled).toBe(true);
    expect(nav.querySelector('[role=status]')?.textContent).toBe('Page 2 of 2');

    fixture.componentInstance.rows.set(ROWS.slice(0, 1));
    fixture.detectChanges();
    expect(names()).toEqual(['Beta']);
    expect(el.querySelector('nav')).toBeNull();
  });
});
