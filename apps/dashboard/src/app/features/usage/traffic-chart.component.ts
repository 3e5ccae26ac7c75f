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
function palette(): Record<'forwarded' | 'errors' | 'refused' | 'text' | 'grid' | 'surface', string> {
  const style = getComputedStyle(document.documentElement);
  const color = (name: string) => style.getPropertyValue(name).trim();
  return {
    forwarded: color('--accent'),
    errors: color('--warn'),
    refused: color('--danger'),
    text: color('--muted'),
    grid: color('--border'),
    surface: color('--surface'),
  };
}

/** One hour as words: "14:00: 12 forwarded (1 upstream error), 3 refused". */
export function bucketText(bucket: UsageBucket, period: UsagePeriod): string {
  const errors = bucket.errors === 1 ? '1 upstream error' : `${bucket.errors.toLocaleString()} upstream errors`;
  return (
    `${hourLabel(bucket.start, period)}: ${bucket.forwarded.toLocaleString()} forwarded (${errors}), ` +
    `${bucket.refused.toLocaleString()} refused`
  );
}

const STEPS: Record<string, (index: number, last: number) => number> = {
  ArrowRight: (i, last) => Math.min(i + 1, last),
  ArrowLeft: (i) => Math.max(i - 1, 0),
  Home: () => 0,
  End: (_i, last) => last,
};

/**
 * Calls per hour (Chart.js on a canvas), in the theme's colours: forwarded calls the upstream answered,
 * upstream errors (the forwarded calls answered 5xx) and refused calls, stacked. Hovering a bar shows its
 * values; so does the keyboard (the plot is focusable, arrow keys move from hour to hour and the hour's
 * values are announced). Its text alternative is a one-sentence summary (the canvas's label and the
 * caption) and a table of the hours that had calls.
 */
@Component({
  selector: 'arb-traffic-chart',
  imports: [UsageTableComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <figure class="figure">
      <ul class="legend">
        <li><span class="swatch forwarded"></span>Forwarded</li>
        <li><span class="swatch errors"></span>Upstream errors (forwarded, answered 5xx)</li>
        <li><span class="swatch refused"></span>Refused</li>
      </ul>
      <div
        class="plot"
        tabindex="0"
        role="group"
        aria-roledescription="chart"
        aria-label="Calls per hour: use the arrow keys to read each hour"
        data-testid="traffic-plot"
        (keydown)="step($event)"
        (focus)="focusBar()"
        (blur)="blurBar()"
      >
        <canvas #canvas role="img" [attr.aria-label]="summary()">{{ summary() }}</canvas>
      </div>
      <p class="hint focused" aria-live="polite" data-testid="traffic-focused">{{ focusedText() }}</p>
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
      flex-wrap: wrap;
      gap: 0.25rem 1rem;
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
    .errors {
      background: var(--warn);
    }
    .refused {
      background: var(--danger);
    }
    .plot {
      position: relative;
      height: 14rem;
      min-width: 0;
      border-radius: 0.25rem;
    }
    .plot:focus-visible {
      outline: 2px solid var(--accent);
      outline-offset: 2px;
    }
    .focused {
      min-height: 1.5em;
      margin: 0.25rem 0 0;
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
  /** The hour the keyboard is on (an index into `buckets`), null when the plot has no focus. */
  protected readonly focused = signal<number | null>(null);
  protected readonly focusedText = computed(() => {
    const index = this.focused();
    const bucket = index === null ? undefined : this.buckets()[index];
    return bucket ? bucketText(bucket, this.period()) : '';
  });
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

  /** Focus lands on the last hour with calls (or the last hour). */
  protected focusBar(): void {
    const buckets = this.buckets();
    if (buckets.length === 0) return;
    const current = this.focused();
    let index = current ?? buckets.length - 1;
    if (current === null) {
      for (let i = buckets.length - 1; i >= 0; i--)
        if (buckets[i].forwarded + buckets[i].refused > 0) {
          index = i;
          break;
        }
    }
    this.show(Math.min(index, buckets.length - 1));
  }

  protected blurBar(): void {
    this.focused.set(null);
    const chart = this.drawn();
    if (!chart) return;
    chart.setActiveElements([]);
    chart.tooltip?.setActiveElements([], { x: 0, y: 0 });
    chart.update('none');
  }

  /** The chart, once drawn on a canvas that gave it a drawing context. */
  private drawn(): BarChart | undefined {
    return this.chart?.ctx ? this.chart : undefined;
  }

  protected step(event: KeyboardEvent): void {
    const move = STEPS[event.key];
    const last = this.buckets().length - 1;
    if (!move || last < 0) return;
    event.preventDefault();
    this.show(move(this.focused() ?? last, last));
  }

  /** The hour's values in the announced line, and its bar highlighted with its tooltip. */
  private show(index: number): void {
    this.focused.set(index);
    const chart = this.drawn();
    if (!chart) return;
    const active = chart.data.datasets.map((_d, datasetIndex) => ({ datasetIndex, index }));
    chart.setActiveElements(active);
    const bar = chart.getDatasetMeta(0).data[index];
    chart.tooltip?.setActiveElements(active, { x: bar?.x ?? 0, y: bar?.y ?? 0 });
    chart.update('none');
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
    // Upstream errors are forwarded calls: the forwarded part of a bar is split in two.
    const answered = buckets.map((b) => Math.max(b.forwarded - b.errors, 0));
    const errors = buckets.map((b) => b.errors);
    const refused = buckets.map((b) => b.refused);
    // A line of the surface's colour between the parts of a bar: they stay apart whatever their hues.
    const separated = {
      borderColor: colors.surface,
      borderWidth: { top: 1, right: 0, bottom: 0, left: 0 },
      borderSkipped: false as const,
    };
    const datasets = [
      { label: 'Forwarded', data: answered, backgroundColor: colors.forwarded, ...separated },
      { label: 'Upstream errors', data: errors, backgroundColor: colors.errors, ...separated },
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
        title: { display: true, text: 'Calls per hour', color: colors.text },
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
        plugins: {
          tooltip: {
            enabled: true,
            callbacks: {
              // The forwarded line counts every forwarded call, upstream errors included.
              label: (item) => {
                const bucket = this.buckets()[item.dataIndex];
                if (!bucket) return `${item.dataset.label}: ${item.formattedValue}`;
                if (item.datasetIndex === 0) return `Forwarded: ${bucket.forwarded.toLocaleString()}`;
                return `${item.dataset.label}: ${item.formattedValue}`;
              },
            },
          },
        },
      },
    });
  }
}
