import { MAX_GRACE_MINUTES, type PreviousKeyDto } from '@arrbiter/contracts';

/** The grace periods offered when rotating a key (`custom`: minutes typed in). */
export const GRACE_CHOICES: readonly { value: string; label: string; minutes: number | null }[] = [
  { value: 'none', label: 'No grace period (the old key stops at once)', minutes: 0 },
  { value: '60', label: '1 hour', minutes: 60 },
  { value: '1440', label: '1 day', minutes: 1_440 },
  { value: '10080', label: '7 days', minutes: MAX_GRACE_MINUTES },
  { value: 'custom', label: 'Custom…', minutes: null },
];

/** The grace period of a choice, in minutes; null when a custom one is not a whole number from 1 to 10080. */
export function graceMinutes(choice: string, custom: string): number | null {
  const preset = GRACE_CHOICES.find((c) => c.value === choice);
  if (preset && preset.minutes !== null) return preset.minutes;
  const minutes = Number(custom);
  return custom.trim() !== '' && Number.isInteger(minutes) && minutes >= 1 && minutes <= MAX_GRACE_MINUTES
    ? minutes
    : null;
}

/** "used 3 times, last at …" for a previous key ("not used since the rotation" when never). */
export function previousKeyUse(
  previous: PreviousKeyDto,
  format = (iso: string) => new Date(iso).toLocaleString(),
): string {
  if (previous.uses === 0 || previous.lastUsedAt === null) return 'not used since the rotation';
  return `used ${previous.uses} ${previous.uses === 1 ? 'time' : 'times'}, last at ${format(previous.lastUsedAt)}`;
}

/** "90 minutes", "1 day", "7 days", "1 hour 30 minutes"… */
export function describeMinutes(minutes: number): string {
  const parts: string[] = [];
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days) parts.push(`${days} ${days === 1 ? 'day' : 'days'}`);
  if (hours) parts.push(`${hours} ${hours === 1 ? 'hour' : 'hours'}`);
  if (rest) parts.push(`${rest} ${rest === 1 ? 'minute' : 'minutes'}`);
  return parts.join(' ');
}
