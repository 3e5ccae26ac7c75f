import type { UsageBucket, UsageQuery } from '@arrbiter/contracts';

export type UsagePeriod = '24h' | '7d' | '30d';

const HOUR = 3_600_000;

export const USAGE_PERIODS: readonly { value: UsagePeriod; label: string; hours: number; words: string }[] = [
  { value: '24h', label: '24 h', hours: 24, words: 'the last 24 hours' },
  { value: '7d', label: '7 d', hours: 7 * 24, words: 'the last 7 days' },
  { value: '30d', label: '30 d', hours: 30 * 24, words: 'the last 30 days' },
];

function periodOf(value: UsagePeriod) {
  return USAGE_PERIODS.find((p) => p.value === value) ?? USAGE_PERIODS[0];
}

/** The query of a period: its whole hours up to the current one (which is still going on). */
export function periodQuery(value: UsagePeriod, now = Date.now()): UsageQuery {
  const hour = now - (now % HOUR);
  return { from: new Date(hour - (periodOf(value).hours - 1) * HOUR).toISOString(), to: new Date(now).toISOString() };
}

/** "the last 7 days". */
export function periodWords(value: UsagePeriod): string {
  return periodOf(value).words;
}

/** The sums of a period. */
export function totals(buckets: readonly UsageBucket[]): { forwarded: number; refused: number; errors: number } {
  let forwarded = 0;
  let refused = 0;
  let errors = 0;
  for (const b of buckets) {
    forwarded += b.forwarded;
    refused += b.refused;
    errors += b.errors;
  }
  return { forwarded, refused, errors };
}

/** A bucket's hour as a person reads it: the time alone within a day, with the day beyond. */
export function hourLabel(start: string, value: UsagePeriod): string {
  const date = new Date(start);
  return value === '24h'
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleString([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

/** A one-sentence summary of a period (the chart's text alternative). */
export function usageSummary(buckets: readonly UsageBucket[], value: UsagePeriod): string {
  const sum = totals(buckets);
  const words = periodWords(value);
  if (sum.forwarded + sum.refused === 0) return `No calls in ${words}.`;
  const n = (x: number) => x.toLocaleString();
  let busiest = buckets[0];
  for (const b of buckets) if (b.forwarded + b.refused > busiest.forwarded + busiest.refused) busiest = b;
  return (
    `In ${words}: ${n(sum.forwarded)} forwarded, ${n(sum.refused)} refused, ${n(sum.errors)} upstream ${sum.errors === 1 ? 'error' : 'errors'}. ` +
    `Busiest hour: ${hourLabel(busiest.start, value)}, ${n(busiest.forwarded + busiest.refused)} calls.`
  );
}
