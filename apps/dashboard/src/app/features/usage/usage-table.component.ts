import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { UsageCounts } from '@arrbiter/contracts';

/** One row of a usage table: what it counts (an hour, an app) and its counts. */
export interface UsageTableRow extends UsageCounts {
  key: string;
  label: string;
  /** The row's name links there. */
  link?: string[];
  /** The row is an hour: its start, for a `<time>` element. */
  datetime?: string;
}

/** Forwarded, refused and upstream errors per row (an hour, an app): the usage views' tables. */
@Component({
  selector: 'arb-usage-table',
  imports: [RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="table-wrap">
      <table>
        <caption [class.visually-hidden]="hideCaption()">
          {{
            caption()
          }}
        </caption>
        <thead>
          <tr>
            <th scope="col">{{ heading() }}</th>
            <th scope="col">Forwarded</th>
            <th scope="col">Refused</th>
            <th scope="col">Upstream errors</th>
          </tr>
        </thead>
        <tbody>
          @for (r of rows(); track r.key) {
            <tr>
              <th scope="row">
                @if (r.link) {
                  <a [routerLink]="r.link">{{ r.label }}</a>
                } @else if (r.datetime) {
                  <time [attr.datetime]="r.datetime">{{ r.label }}</time>
                } @else {
                  {{ r.label }}
                }
              </th>
              <td>{{ r.forwarded.toLocaleString() }}</td>
              <td>{{ r.refused.toLocaleString() }}</td>
              <td>{{ r.errors.toLocaleString() }}</td>
            </tr>
          }
        </tbody>
      </table>
    </div>
  `,
  styles: `
    caption {
      text-align: left;
      font-weight: 600;
      margin: 1rem 0 0.25rem;
    }
    th[scope='row'] {
      font-weight: 400;
      text-transform: none;
      letter-spacing: 0;
      color: inherit;
      font-size: inherit;
    }
    tbody tr:last-child th {
      border-bottom: 0;
    }
  `,
})
export class UsageTableComponent {
  readonly caption = input.required<string>();
  readonly hideCaption = input(false);
  /** The first column's heading. */
  readonly heading = input.required<string>();
  readonly rows = input.required<UsageTableRow[]>();
}
