import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import type { FitResult, TemplateFitResponse } from '@arrbiter/contracts';
import { MethodBadgeComponent } from '@arrbiter/dashboard/ui';
import { coverageLine, missingRoutes } from './known-clients';

/**
 * How well a template fits its known client, one line per service type ("radarr: covers 7 of 16
 * calls, 9 missing"), each opening onto the calls it misses and the grants the client never uses.
 */
@Component({
  selector: 'arb-template-fit',
  imports: [MethodBadgeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <p class="fit-title">
      Fit for <strong>{{ fit().clientName }}</strong
      ><span class="hint"> (its calls, read from its source)</span>
    </p>
    <ul class="fit-list">
      @for (s of fit().services; track s.serviceType) {
        <li [attr.data-testid]="'fit-' + s.serviceType">
          @if (s.missing.length + s.unused.length > 0) {
            <details>
              <summary>
                <span class="badge accent">{{ s.serviceType }}</span>
                {{ coverage(s) }}
              </summary>
              @if (s.missing.length > 0) {
                <p class="hint">Refused, though {{ fit().clientName }} calls them:</p>
                <ul class="calls">
                  @for (m of missing(s); track m.method + ' ' + m.route) {
                    <li>
                      <arb-method-badge [method]="m.method" />&ngsp;<code>{{ m.route }}</code>
                      @if (m.calls[0]?.risk?.sensitive) {
                        &ngsp;<span class="badge danger" [title]="m.calls[0].risk.reason">Sensitive</span>
                      }
                      <span class="hint">
                        sent as
                        @for (c of m.calls; track c.sample; let last = $last) {
                          <code>{{ c.sample }}</code
                          >{{ last ? '' : ', ' }}
                        }
                      </span>
                    </li>
                  }
                </ul>
              }
              @if (s.unused.length > 0) {
                <p class="hint">Granted, never called:</p>
                <ul class="calls">
                  @for (u of s.unused; track u.method + ' ' + u.route) {
                    <li>
                      <arb-method-badge [method]="u.method" />&ngsp;<code>{{ u.route }}</code>
                    </li>
                  }
                </ul>
              }
            </details>
          } @else {
            <span class="badge accent">{{ s.serviceType }}</span
            >&ngsp;{{ coverage(s) }}
          }
        </li>
      } @empty {
        <li class="hint">{{ fit().clientName }} calls none of this template’s service types.</li>
      }
    </ul>
  `,
  styles: `
    .fit-title {
      margin: 0.25rem 0;
    }
    .fit-list {
      list-style: none;
      padding: 0;
      margin: 0;
      display: grid;
      gap: 0.25rem;
    }
    summary {
      cursor: pointer;
    }
    .calls {
      list-style: none;
      margin: 0.25rem 0 0.5rem;
      padding: 0 0 0 0.75rem;
    }
    .hint {
      margin: 0.25rem 0 0;
    }
  `,
})
export class TemplateFitComponent {
  readonly fit = input.required<TemplateFitResponse>();
  protected readonly coverage = coverageLine;
  protected readonly missing = (fit: FitResult) => missingRoutes(fit.missing);
}
