import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { PageHeaderComponent } from './page-header.component';

@Component({
  imports: [PageHeaderComponent],
  template: `
    <arb-page-header title="Apps" [description]="description">
      <p arbPageDetail class="row"><code>/proxy/x</code></p>
      <button type="button">New app</button>
    </arb-page-header>
  `,
})
class HostComponent {
  description: string | undefined = 'One app per client.';
}

describe('PageHeaderComponent', () => {
  function render(description?: string) {
    const fixture = TestBed.createComponent(HostComponent);
    fixture.componentInstance.description = description;
    fixture.detectChanges();
    return fixture.nativeElement as HTMLElement;
  }

  it('shows the title as the h1, the description, the detail and the actions in that order', () => {
    const el = render('One app per client.');
    const header = el.querySelector('header.page-head');
    expect(header?.querySelector('h1')?.textContent?.trim()).toBe('Apps');
    const grow = header?.querySelector('.grow');
    expect(grow?.querySelector('p.muted')?.textContent?.trim()).toBe('One app per client.');
    expect(grow?.querySelector('[arbPageDetail] code')?.textContent).toBe('/proxy/x');
    // The actions stand after the title block, not inside it.
    expect(grow?.querySelector('button')).toBeNull();
    expect(header?.lastElementChild?.textContent?.trim()).toBe('New app');
  });

  it('leaves the description out when there is none', () => {
    const el = render(undefined);
    expect(el.querySelector('p.muted')).toBeNull();
  });
});
