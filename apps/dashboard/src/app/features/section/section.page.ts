import { ChangeDetectionStrategy, Component, input } from '@angular/core';

/** A section whose workflows have not arrived yet: what it will hold, never a dead control. */
@Component({
  selector: 'arb-section-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <h1>{{ title() }}</h1>
    <section class="card empty">
      <p>{{ summary() }}</p>
      <p class="muted">Nothing to show here yet.</p>
    </section>
  `,
  styles: `
    .empty {
      padding: 2rem;
      max-width: 40rem;
    }
    h1 {
      margin-top: 0;
    }
  `,
})
export class SectionPage {
  readonly title = input.required<string>();
  readonly summary = input.required<string>();
}
