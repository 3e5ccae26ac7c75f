import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { UnauthorizedCalls } from '@arrbiter/contracts';
import { TimeComponent } from '@arrbiter/dashboard/ui';

/** "12 calls with a wrong or missing key in the last 24 h": the count and the period, in words. */
export function unauthorizedCount(count: number, period: string): string {
  return `${count} ${count === 1 ? 'call' : 'calls'} with a wrong or missing key in ${period}`;
}

/**
 * Calls refused with 401, one line per app (or "unknown app": slugs no app has): how many in the period,
 * when the last came, from which address and with which User-Agent. On Home (with the app's name) and
 * on the app's page (without).
 */
@Component({
  selector: 'arb-unauthorized-calls',
  imports: [RouterLink, TimeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <ul class="plain unauthorized" data-testid="unauthorized-calls">
      @for (item of items(); track item.appId) {
        <li>
          @if (showApp()) {
            @if (item.appId) {
              <a [routerLink]="['/apps', item.appId]" class="app">{{ item.appName }}</a>
            } @else {
              <span class="app">Unknown app</span>
            }
            <span aria-hidden="true">: </span>
          }
          <span data-testid="unauthorized-line"
            >{{ count(item) }}, last <arb-time [value]="item.lastSeen" />{{ caller(item) }}</span
          >
        </li>
      }
    </ul>
  `,
  styles: `
    .unauthorized li {
      padding: 0.25rem 0;
      overflow-wrap: anywhere;
    }
    .app {
      font-weight: 600;
    }
  `,
})
export class UnauthorizedCallsComponent {
  readonly items = input.required<UnauthorizedCalls[]>();
  /** The period in words: "the last 24 h". */
  readonly period = input('the last 24 h');
  /** Whether each line names its app (Home); the app's own page leaves it out. */
  readonly showApp = input(true);

  protected count(item: UnauthorizedCalls): string {
    return unauthorizedCount(item.count, this.period());
  }

  /** " from 10.0.0.5, User-Agent Overseerr/1.33", either part left out when unknown. */
  protected caller(item: UnauthorizedCalls): string {
    const from = item.lastAddress ? ` from ${item.lastAddress}` : '';
    const agent = item.lastUserAgent ? `, User-Agent ${item.lastUserAgent}` : '';
    return from + agent;
  }
}
