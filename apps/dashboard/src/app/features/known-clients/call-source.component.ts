import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { KnownClientCallSourceDto, KnownClientSourceDto } from '@arrbiter/contracts';
import { fileName, repositoryName, sourceUrl } from './known-clients';

/**
 * Where a known client makes a call: the file (linked to the client's source at the commit the calls
 * were read from, when that is known) and the function.
 */
@Component({
  selector: 'arb-call-source',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (url(); as href) {
      <a [href]="href" target="_blank" rel="noopener noreferrer" [title]="source().file"
        >{{ name() }}<span class="visually-hidden"> (source, opens in a new tab)</span></a
      >
    } @else {
      <span [title]="source().file">{{ name() }}</span>
    }
    {{ ' ' }}<code>{{ source().function }}</code>
    @if (library(); as name) {
      <span class="muted"> (in {{ name }})</span>
    }
  `,
  styles: `
    :host {
      display: inline;
    }
  `,
})
export class CallSourceComponent {
  readonly source = input.required<KnownClientCallSourceDto>();
  /** The release the client's calls were read from; without it the file is not linked. */
  readonly client = input<KnownClientSourceDto | undefined>(undefined);

  protected readonly url = computed(() => sourceUrl(this.client(), this.source()));
  protected readonly name = computed(() => fileName(this.source().file));
  /** The library that makes the call, when it is not the client's own code. */
  protected readonly library = computed(() => {
    const repository = this.source().repository;
    return repository ? repositoryName(repository) : null;
  });
}
