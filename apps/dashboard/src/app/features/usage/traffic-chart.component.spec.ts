import { TestBed } from '@angular/core/testing';
import type { UsageBucket } from '@arrbiter/contracts';
import { bucketText, TrafficChartComponent } from './traffic-chart.component';
import { hourLabel } from './usage-period';

const bucket = (start: string, forwarded: number, refused: number, errors = 0): UsageBucket => ({
  start,
  forwarded,
  refused,
  errors,
});

describe(TrafficChartComponent.name, () => {
  const buckets = [
    bucket('2026-11-24T08:00:00.000Z', 0, 0),
    bucket('2026-11-24T09:00:00.000Z', 12, 3, 1),
    bucket('2026-11-24T10:00:00.000Z', 4, 0, 2),
    bucket('2026-11-24T11:00:00.000Z', 0, 0),
  ];

  it('says an hour in words, upstream errors with correct plurals', () => {
    const hour = hourLabel(buckets[1].start, '24h');
    expect(bucketText(buckets[1], '24h')).toBe(`${hour}: 12 forwarded (1 upstream error), 3 refused`);
    expect(bucketText(buckets[2], '24h')).toMatch(/: 4 forwarded \(2 upstream errors\), 0 refused$/);
  });

  it('names upstream errors in the legend and reads each hour from the keyboard', async () => {
    const fixture = TestBed.createComponent(TrafficChartComponent);
    fixture.componentRef.setInput('buckets', buckets);
    fixture.componentRef.setInput('period', '24h');
    await fixture.whenStable();
    const root: HTMLElement = fixture.nativeElement;
    expect([...root.querySelectorAll('.legend li')].map((li) => li.textContent?.trim())).toEqual([
      'Forwarded',
      'Upstream errors (forwarded, answered 5xx)',
      'Refused',
    ]);
    const plot = root.querySelector<HTMLElement>('[data-testid="traffic-plot"]');
    const announced = () => root.querySelector('[data-testid="traffic-focused"]')?.textContent?.trim();
    expect(plot?.tabIndex).toBe(0);
    expect(announced()).toBe('');

    // Focus lands on the last hour with calls; arrows, Home and End move from hour to hour.
    plot?.dispatchEvent(new FocusEvent('focus'));
    await fixture.whenStable();
    expect(announced()).toBe(bucketText(buckets[2], '24h'));
    const press = async (key: string) => {
      const event = new KeyboardEvent('keydown', { key, cancelable: true });
      plot?.dispatchEvent(event);
      await fixture.whenStable();
      return event.defaultPrevented;
    };
    expect(await press('ArrowLeft')).toBe(true);
    expect(announced()).toBe(bucketText(buckets[1], '24h'));
    await press('End');
    expect(announced()).toBe(bucketText(buckets[3], '24h'));
    await press('ArrowRight');
    expect(announced()).toBe(bucketText(buckets[3], '24h'));
    await press('Home');
    expect(announced()).toBe(bucketText(buckets[0], '24h'));
    expect(await press('Tab')).toBe(false);

    plot?.dispatchEvent(new FocusEvent('blur'));
    await fixture.whenStable();
    expect(announced()).toBe('');
  });
});
