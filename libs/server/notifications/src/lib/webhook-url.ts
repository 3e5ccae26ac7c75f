/** The longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** What stands for the hidden parts of a masked URL. */
export const MASK = '…';

/** Why an admin-given URL cannot be a webhook's, or null when it can. */
export function webhookUrlProblem(value: string): string | null {
  if (value.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  if (value.includes(MASK)) return 'is a masked URL: leave url out to keep the stored one, or enter the whole new URL';
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return 'must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a full http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  if (url.hostname === '') return 'must name a host';
  if (url.hash !== '') return 'must not have a fragment (#…)';
  return null;
}

/** A path segment that looks like a token rather than a name (long, and not a plain number). */
function looksSecret(segment: string): boolean {
  return segment.length > 16 && !/^\d+$/.test(segment);
}

/**
 * A webhook URL as it may be shown: scheme, host and port, the path but its last segment (segments
 * that look like tokens replaced by `…`), then `/…` when a last segment or a query was left out.
 * Never credentials, a query or the last segment (`https://discord.com/api/webhooks/123/…`,
 * `https://ntfy.sh/…`).
 */
export function maskWebhookUrl(value: string): string {
  const url = new URL(value);
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const shown = segments.slice(0, -1).map((segment) => (looksSecret(segment) ? MASK : segment));
  const hidden = segments.length > 0 || url.search !== '';
  return `${url.protocol}//${url.host}${shown.map((segment) => `/${segment}`).join('')}${hidden ? `/${MASK}` : ''}`;
}

/** Where a request actually goes: the URL without credentials, and Basic credentials as a header. */
export function requestTarget(value: string): { url: string; authorization: string | null } {
  const url = new URL(value);
  if (url.username === '' && url.password === '') return { url: url.href, authorization: null };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { url: url.href, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** The parts of a webhook URL that may be secret, longest first. */
function secretParts(value: string): string[] {
  const parts = new Set<string>([value]);
  try {
    const url = new URL(value);
    parts.add(url.href);
    for (const part of [url.username, url.password, url.pathname, url.search]) parts.add(part);
    for (const segment of url.pathname.split('/')) parts.add(segment);
    for (const [name, item] of url.searchParams) parts.add(item).add(`${name}=${item}`);
  } catch {
    // Not a URL: only the whole value is hidden.
  }
  const decoded = [...parts].flatMap((part) => {
    try {
      return [part, decodeURIComponent(part)];
    } catch {
      return [part];
    }
  });
  return [...new Set(decoded)].filter((part) => part.length >= 4 && part !== '/').sort((a, b) => b.length - a.length);
}

/** The longest text kept of an error or of a receiver's answer. */
export const MAX_ERROR_LENGTH = 300;

/**
 * A short, single-line error text that never shows the webhook URL or any part of it that may be
 * secret (a receiver may echo its URL or token back).
 */
export function safeErrorText(text: string, webhookUrl: string): string {
  let result = text;
  for (const part of secretParts(webhookUrl)) result = result.split(part).join(MASK);
  // eslint-disable-next-line no-control-regex
  result = result.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return result.length > MAX_ERROR_LENGTH ? `${result.slice(0, MAX_ERROR_LENGTH - 1)}…` : result;
}
