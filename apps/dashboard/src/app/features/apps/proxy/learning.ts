/** Learning mode is on while its deadline is in the future. */
export function isLearning(until: string | null, now = Date.now()): boolean {
  return until !== null && Date.parse(until) > now;
}

/** Durations offered for learning mode (the server accepts up to 7 days). */
export const LEARNING_DURATIONS: readonly { label: string; hours: number }[] = [
  { label: '1 hour', hours: 1 },
  { label: '6 hours', hours: 6 },
  { label: '1 day', hours: 24 },
  { label: '3 days', hours: 72 },
  { label: '7 days', hours: 168 },
];

export const MAX_LEARNING_HOURS = 168;

/** The deadline for a duration from now, as ISO 8601; capped at 7 days. */
export function learningDeadline(hours: number, now = Date.now()): string {
  const capped = Math.min(Math.max(hours, 0), MAX_LEARNING_HOURS);
  // A minute short of the cap so the server's "at most 7 days ahead" holds after the request's latency.
  const ms = capped >= MAX_LEARNING_HOURS ? capped * 3_600_000 - 60_000 : capped * 3_600_000;
  return new Date(now + ms).toISOString();
}
