/** Relative time for lists ("3 min ago", "in 2 h"); the exact time goes in a title. */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
  ];
  for (const [size, unit] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      return ms < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
    }
  }
  // Within a minute either way (clocks drift a little): now.
  return 'just now';
}

/** Full local date and time. */
export function fullTime(iso: string): string {
  return new Date(iso).toLocaleString();
}

/** `get` → `GET`. */
export function methodLabel(method: string): string {
  return method.toUpperCase();
}

/** A slug from a name: lower case, dashes, at most 63 characters, starting with a letter or digit. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
