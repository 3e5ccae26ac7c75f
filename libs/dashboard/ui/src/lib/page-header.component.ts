import { ChangeDetectionStrategy, Component, input } from '@angular/core';

/**
 * A page's title (its one `h1`), an optional one-line description, and its actions.
 * Rich descriptions (badges, code) go in an element marked `arbPageDetail`; everything else that is
 * projected (buttons) stands at the end of the header.
 */
@Component({
  selector: 'arb-page-header',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <header class="page-head">
      <div class="grow">
        <h1>{{ title() }}</h1>
        @if (description(); as text) {
          <p class="muted">{{ text }}</p>
        }
        <ng-content select="[arbPageDetail]" />
      </div>
      <ng-content />
    </header>
  `,
  styles: `
    :host {
      display: block;
    }
  `,
})
export class PageHeaderComponent {
  readonly title = input.required<string>();
  readonly description = input<string>();
}
