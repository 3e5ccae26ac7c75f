import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { TemplateSyncReport } from '@arrbiter/contracts';
import { MethodBadgeComponent } from '@arrbiter/dashboard/ui';

/** A template sync report (or dry-run preview), readable. */
@Component({
  selector: 'arb-sync-report',
  imports: [RouterLink, MethodBadgeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @let r = report();
    <h3>
      {{ r.dryRun ? 'Preview: a sync would' : 'Sync done'
      }}{{ r.commit ? ' (commit ' + r.commit.slice(0, 10) + ')' : '' }}
    </h3>
    <p class="row">
      <span class="badge ok">{{ r.added.length }} added</span>
      <span class="badge accent">{{ r.changed.length }} changed</span>
      <span class="badge danger">{{ r.deleted.length }} deleted</span>
      <span class="badge warn">{{ r.keptRemoved.length }} kept (removed, in use)</span>
      <span class="badge">{{ r.unchanged }} unchanged</span>
    </p>
    @if (r.added.length) {
      <p><strong>New templates:</strong> {{ r.added.join(', ') }}</p>
    }
    @for (c of r.changed; track c.name) {
      <details>
        <summary>
          <strong>{{ c.name }}</strong> changes
        </summary>
        @for (b of c.blocks; track b.serviceType) {
          <p class="hint">{{ b.serviceType }}</p>
          @for (g of b.added; track g.method + g.path) {
            <div class="add">
              + <arb-method-badge [method]="g.method" />&ngsp;<code>{{ g.path }}</code>
            </div>
          }
          @for (g of b.removed; track g.method + g.path) {
            <div class="del">
              − <arb-method-badge [method]="g.method" />&ngsp;<code>{{ g.path }}</code>
            </div>
          }
        }
      </details>
    }
    @if (r.pending.length) {
      <p>
        <strong
          >{{ r.dryRun ? 'Would be held for review' : 'Held for review' }} (grants added to templates in use):</strong
        >
        {{ pendingNames(r) }}
      </p>
    }
    @if (r.deleted.length) {
      <p><strong>Deleted (unused):</strong> {{ r.deleted.join(', ') }}</p>
    }
    @if (r.keptRemoved.length) {
      <p><strong>Gone from the repository but kept, apps use them:</strong> {{ r.keptRemoved.join(', ') }}</p>
    }
    @if (r.proxies.length) {
      <p>
        <strong>{{ r.dryRun ? 'Proxies whose access would change' : 'Proxies whose access changed' }}:</strong>
      </p>
      <ul>
        @for (p of r.proxies; track p.proxyId) {
          <li>
            <a [routerLink]="['/apps', p.appId, 'proxies', p.proxyId, 'history']">{{ p.appName }}</a
            >: {{ p.added.length }} grants added, {{ p.removed.length }} removed
          </li>
        }
      </ul>
    } @else {
      <p class="hint">No proxy’s access {{ r.dryRun ? 'would change' : 'changed' }}.</p>
    }
    @if (r.problems.length) {
      <p><strong>Skipped files:</strong></p>
      <ul>
        @for (p of r.problems; track p.file) {
          <li>
            <code>{{ p.file }}</code
            >: {{ p.reason }}
          </li>
        }
      </ul>
    }
  `,
  styles: `
    h3 {
      margin: 0 0 0.5rem;
      font-size: 1rem;
    }
    .add {
      color: var(--ok);
    }
    .del {
      color: var(--danger);
    }
  `,
})
export class SyncReportComponent {
  readonly report = input.required<TemplateSyncReport>();

  protected pendingNames(report: TemplateSyncReport): string {
    return report.pending.map((p) => p.name).join(', ');
  }
}
