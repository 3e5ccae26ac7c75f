import { ChangeDetectionStrategy, Component, computed, input, signal } from '@angular/core';
import type { ClientInstructionsDto } from '@arrbiter/contracts';
import { CopyButtonComponent } from '@arrbiter/dashboard/ui';

const MASK = '••••••••••••••••••••••••••••••••';

/** A value the server masked for a viewer: nothing to reveal or copy. */
function masked(value: string): boolean {
  return /^•+$/.test(value);
}

/** `text` with every secret value in it masked (a snippet shown before the key is revealed). */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  return secrets.filter((s) => s.length > 0).reduce((out, secret) => out.split(secret).join(MASK), text);
}

/**
 * What to type into a client's own settings for one proxy: each field with a copy button (a key masked
 * until revealed), the configuration snippet, the notes and where they were written from.
 */
@Component({
  selector: 'arb-client-instructions',
  imports: [CopyButtonComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @let i = instructions();
    <p class="hint">
      @if (i.specific) {
        What to enter in {{ i.clientName }}’s own settings for this service.
      } @else {
        {{ i.clientName }} has no instructions of its own in the catalogue: these fit most clients.
      }
    </p>
    <dl class="fields" [attr.data-testid]="'instructions-' + i.serviceId">
      @for (f of i.fields; track f.label) {
        <div class="field-row">
          <dt>{{ f.label }}</dt>
          <dd>
            @if (f.secret && !revealed() && !isMasked(f.value)) {
              <code class="value" [attr.data-field]="f.label">{{ mask }}</code>
            } @else {
              <code class="value" [attr.data-field]="f.label" [attr.data-value]="f.value">{{
                f.value || '(empty)'
              }}</code>
            }
            @if (f.secret && !isMasked(f.value)) {
              <button
                type="button"
                class="small"
                (click)="revealed.set(!revealed())"
                [attr.aria-pressed]="revealed()"
                [attr.aria-label]="(revealed() ? 'Hide ' : 'Reveal ') + f.label"
              >
                {{ revealed() ? 'Hide' : 'Reveal' }}
              </button>
            }
            @if (!f.secret || !isMasked(f.value)) {
              <arb-copy-button [value]="f.value" [label]="f.label" />
            } @else {
              <span class="hint">Not shown to viewers: ask an editor for it.</span>
            }
          </dd>
        </div>
      }
    </dl>
    @if (i.snippet; as s) {
      <div class="snippet">
        <div class="row">
          <strong>{{ s.filename }}</strong>
          <span class="grow"></span>
          @if (!hasMaskedSecret()) {
            <arb-copy-button [value]="s.text" [label]="s.filename" />
          }
        </div>
        <pre tabindex="0" [attr.aria-label]="s.filename"><code>{{ snippetText() }}</code></pre>
      </div>
    }
    @if (i.notes.length > 0) {
      <ul class="notes">
        @for (n of i.notes; track $index) {
          <li>{{ n }}</li>
        }
      </ul>
    }
    <p class="hint">
      Written from
      <a [href]="i.source.url" target="_blank" rel="noopener noreferrer"
        >{{ i.source.title }}<span class="visually-hidden"> (opens in a new tab)</span></a
      >.
    </p>
  `,
  styles: `
    .fields {
      margin: 0.5rem 0;
      display: grid;
      gap: 0.5rem;
    }
    .field-row {
      display: grid;
      grid-template-columns: minmax(8rem, 14rem) 1fr;
      gap: 0.25rem 0.75rem;
      align-items: center;
    }
    dt {
      font-weight: 600;
    }
    dd {
      margin: 0;
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem;
      min-width: 0;
    }
    .value {
      overflow-wrap: anywhere;
    }
    pre {
      background: var(--hover);
      padding: 0.75rem;
      border-radius: 0.5rem;
      overflow-x: auto;
      max-width: 100%;
    }
    .notes {
      padding-left: 1.25rem;
    }
    @media (max-width: 520px) {
      .field-row {
        grid-template-columns: 1fr;
      }
    }
  `,
})
export class ClientInstructionsComponent {
  readonly instructions = input.required<ClientInstructionsDto>();
  protected readonly revealed = signal(false);
  protected readonly mask = MASK;
  protected readonly isMasked = masked;
  private readonly secrets = computed(() =>
    this.instructions()
      .fields.filter((f) => f.secret && !masked(f.value))
      .map((f) => f.value),
  );
  protected readonly hasMaskedSecret = computed(() =>
    this.instructions().fields.some((f) => f.secret && masked(f.value)),
  );
  protected readonly snippetText = computed(() => {
    const text = this.instructions().snippet?.text ?? '';
    return this.revealed() ? text : maskSecrets(text, this.secrets());
  });
}
