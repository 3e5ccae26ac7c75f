import {
  afterRenderEffect,
  ChangeDetectionStrategy,
  Component,
  computed,
  DestroyRef,
  ElementRef,
  inject,
  input,
  signal,
  viewChild,
} from '@angular/core';
import type { UsageBucket } from '@arrbiter/contracts';
import type { Chart } from 'chart.js';
import { ThemeService } from '../../core/theme.service';
import { hourLabel, UsagePeriod, usageSummary } from './usage-period';
import { UsageTableComponent, UsageTableRow } from './usage-table.component';

type ChartJs = typeof import('./bar-chart');
type BarChart = Chart<'bar', number[], string>;

/** Chart.js, loaded the first time a chart is shown (a chunk of its own, with only what a bar chart needs). */
function loadChartJs(): Promise<ChartJs> {
  return import('./bar-chart');
}

/** The theme's colours, read from its CSS variables when the chart is drawn. */
function palette(): Record<'forwarded' | 'refused' | 'text' | 'grid' | 'surface', string> {
  const style = getComputedStyle(document.documentElement);
  const color = (name: string) => style.getPropertyValue(name).trim();
  return {
    forwarded: color('--accent'),
    refused: color('--danger'),
    text: color('--muted'),
    grid: color('--border'),
    surface: color('--surface'),
  };
}

/**
 * Calls per hour, forwarded and refused stacked (Chart.js on a canvas), in the theme's colours. Its
 * text alternative is a one-sentence summary (the canvas's label and the caption) and a table of the
 * hours that had calls.
 */
@Component({
  selector: 'arb-traffic-chart',
  imports: [UsageTableComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <figure class="figure">
      <ul class="legend">
        <li><span class="swatch forwarded"></span>Forwarded</li>
        <li><span class="swatch refused"></span>Refused</li>
      </ul>
      <div class="plot">
        <canvas #canvas role="img" [attr.aria-label]="summary()">{{ summary() }}</canvas>
      </div>
      <figcaption class="hint" data-testid="traffic-summary">{{ summary() }}</figcaption>
    </figure>
    @if (failure(); as f) {
      <p class="error" role="alert">The chart could not be drawn ({{ f }}); the numbers are below.</p>
    }
    <details [open]="failure() !== null">
      <summary>Calls per hour as a table</summary>
      @if (busyHours().length === 0) {
        <p class="muted">No calls in this period.</p>
      } @else {
        <arb-usage-table
          caption="Calls per hour, hours with calls only"
          [hideCaption]="true"
          heading="Hour"
          [rows]="busyHours()"
        />
      }
    </details>
  `,
  styles: `
    .figure {
      margin: 0;
    }
    .legend {
      display: flex;
      gap: 1rem;
      list-style: none;
      padding: 0;
      margin: 0 0 0.5rem;
      font-size: 0.875rem;
    }
    .swatch {
      display: inline-block;
      width: 0.875rem;
      height: 0.875rem;
      border-radius: 0.2rem;
      margin-right: 0.375rem;
      vertical-align: -0.1rem;
    }
    .forwarded {
      background: var(--accent);
    }
    .refused {
      background: var(--danger);
    }
    .plot {
      position: relative;
      height: 14rem;
    }
    figcaption {
      margin-top: 0.5rem;
    }
    details summary {
      cursor: pointer;
      margin-top: 0.5rem;
    }
  `,
})
export class TrafficChartComponent {
  readonly buckets = input.required<UsageBucket[]>();
  readonly period = input.required<UsagePeriod>();

  private readonly theme = inject(ThemeService);
  private readonly canvas = viewChild.required<ElementRef<HTMLCanvasElement>>('canvas');
  private chart: BarChart | undefined;
  private destroyed = false;

  protected readonly failure = signal<string | null>(null);
  protected readonly summary = computed(() => usageSummary(this.buckets(), this.period()));
  protected readonly busyHours = computed(() =>
    this.buckets()
      .filter((b) => b.forwarded + b.refused > 0)
      .map((b): UsageTableRow => ({ ...b, key: b.start, label: hourLabel(b.start, this.period()), datetime: b.start })),
  );

  constructor() {
    afterRenderEffect(() => {
      const buckets = this.buckets();
      const period = this.period();
      // Drawn again in the other theme's colours when the theme changes.
      this.theme.theme();
      void this.draw(buckets, period);
    });
    inject(DestroyRef).onDestroy(() => {
      this.destroyed = true;
      this.chart?.destroy();
    });
  }

  private async draw(buckets: UsageBucket[], period: UsagePeriod): Promise<void> {
    let m: ChartJs;
    try {
      m = await loadChartJs();
    } catch (error) {
      this.failure.set(error instanceof Error ? error.message : 'Chart.js did not load');
      return;
    }
    if (this.destroyed) return;
    const colors = palette();
    const labels = buckets.map((b) => hourLabel(b.start, period));
    const forwarded = buckets.map((b) => b.forwarded);
    const refused = buckets.map((b) => b.refused);
    // A line of the surface's colour between the two parts of a bar: they stay apart whatever their hues.
    const datasets = [
      {
        label: 'Forwarded',
        data: forwarded,
        backgroundColor: colors.forwarded,
        borderColor: colors.surface,
        borderWidth: { top: 1, right: 0, bottom: 0, left: 0 },
        borderSkipped: false as const,
      },
      { label: 'Refused', data: refused, backgroundColor: colors.refused },
    ];
    const scales = {
      x: {
        stacked: true,
        grid: { display: false },
        ticks: { color: colors.text, maxRotation: 0, autoSkip: true, autoSkipPadding: 16 },
      },
      y: {
        stacked: true,
        beginAtZero: true,
        grid: { color: colors.grid },
        ticks: { color: colors.text, precision: 0 },
      },
    };
    if (this.chart) {
      this.chart.data.labels = labels;
      this.chart.data.datasets = datasets;
      this.chart.options.scales = scales;
      this.chart.update('none');
      return;
    }
    this.chart = new m.Chart(this.canvas().nativeElement, {
      type: 'bar',
      data: { labels, datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        datasets: { bar: { categoryPercentage: 0.9, barPercentage: 1 } },
        scales,
        interaction: { mode: 'index', intersect: false },
        plugins: { tooltip: { enabled: true } },
      },
    });
  }
}
