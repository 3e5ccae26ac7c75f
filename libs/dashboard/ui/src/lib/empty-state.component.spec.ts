import { Component, signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { EmptyStateComponent } from './empty-state.component';

@Component({
  imports: [EmptyStateComponent],
  template: `
    <arb-empty-state
      [card]="card()"
      message="No apps match these filters."
      [actionLabel]="actionLabel()"
      (action)="clicks = clicks + 1"
    />
    <arb-empty-state id="projected"><a href="/services">Add a service</a></arb-empty-state>
  `,
})
class HostComponent {
  readonly card = signal(true);
  readonly actionLabel = signal<string | undefined>('Clear search and filters');
  clicks = 0;
}

describe('EmptyStateComponent', () => {
  it('says why the list is empty and offers its call to action as a button', () => {
    const fixture = TestBed.createComponent(HostComponent);
    fixture.detectChanges();
    const el = (fixture.nativeElement as HTMLElement).querySelector('arb-empty-state') as HTMLElement;
    expect(el.classList).toContain('empty-state');
    expect(el.classList).toContain('card');
    expect(el.querySelector('p')?.textContent).toBe('No apps match these filters.');
    const button = el.querySelector('button') as HTMLButtonElement;
    expect(button.type).toBe('button');
    expect(button.textContent).toBe('Clear search and filters');
    button.click();
    expect(fixture.componentInstance.clicks).toBe(1);
  });

  it('leaves the button and the card out when not asked for, and shows projected content', () => {
    const fixture = TestBed.createComponent(HostComponent);
    fixture.componentInstance.card.set(false);
    fixture.componentInstance.actionLabel.set(undefined);
    fixture.detectChanges();
    const root = fixture.nativeElement as HTMLElement;
    const first = root.querySelector('arb-empty-state') as HTMLElement;
    expect(first.classList).not.toContain('card');
    expect(first.querySelector('button')).toBeNull();
    const projected = root.querySelector('#projected') as HTMLElement;
    expect(projected.querySelector('p')).toBeNull();
    expect(projected.querySelector('a')?.textContent).toBe('Add a service');
  });
});
