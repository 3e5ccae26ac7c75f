import type { UsageBucket } from '@arrbiter/contracts';
import { periodQuery, totals, usageSummary } from './usage-period';

const bucket = (start: string, forwarded: number, refused: number, errors = 0): UsageBucket => ({
  start,
  forwarded,
  refused,
  errors,
});

describe('usage periods', () => {
  const now = Date.UTC(2026, 10, 24, 10, 37);

  it('asks for whole hours up to the current one', () => {
    expect(periodQuery('24h', now)).toEqual({ from: '2026-11-23T11:00:00.000Z', to: '2026-11-24T10:37:00.000Z' });
    expect(periodQuery('7d', now).from).toBe('2026-11-17T11:00:00.000Z');
    expect(periodQuery('30d', now).from).toBe('2026-10-25T11:00:00.000Z');
  });

  it('sums a period and says it in one sentence, or that nothing was called', () => {
    const buckets = [bucket('2026-11-24T09:00:00.000Z', 3, 1, 1), bucket('2026-11-24T10:00:00.000Z', 10, 2)];
    expect(totals(buckets)).toEqual({ forwarded: 13, refused: 3, errors: 1 });
    expect(usageSummary(buckets, '24h')).toMatch(
      /^In the last 24 hours: 13 forwarded, 3 refused, 1 upstream error\. Busiest hour: .+, 12 calls\.$/,
    );
    expect(usageSummary([bucket('2026-11-24T09:00:00.000Z', 0, 0)], '7d')).toBe('No calls in the last 7 days.');
  });
});
