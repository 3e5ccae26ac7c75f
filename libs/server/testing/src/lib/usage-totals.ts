import type { UsageCounts } from '@arrbiter/contracts';

/** The sums of usage buckets (or of any usage counts): what a period's answer adds up to. */
export function usageTotals(counts: readonly UsageCounts[]): UsageCounts {
  return counts.reduce(
    (sum, c) => ({
      forwarded: sum.forwarded + c.forwarded,
      refused: sum.refused + c.refused,
      errors: sum.errors + c.errors,
    }),
    { forwarded: 0, refused: 0, errors: 0 },
  );
}
