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

/** A decoded form of a URL part, or the part itself when it is not valid percent-encoding. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The shortest secret part masked (shorter ones would mask ordinary words). */
const MIN_SECRET_LENGTH = 4;

/**
 * The parts of a webhook URL that may be secret, as written and decoded: the URL itself, its
 * credentials and `user:password` (of which the Basic authorization is made), its path and each path
 * segment, its query and each query value.
 */
function secretValues(value: string): string[] {
  const values = new Set<string>([value]);
  try {
    const url = new URL(value);
    values.add(url.href);
    const user = decoded(url.username);
    const password = decoded(url.password);
    values.add(url.username).add(user).add(url.password).add(password);
    const { authorization } = requestTarget(value);
    if (authorization !== null)
      values
        .add(`${user}:${password}`)
        .add(authorization)
        .add(authorization.slice(authorization.indexOf(' ') + 1));
    values.add(url.pathname).add(url.search);
    for (const segment of url.pathname.split('/')) values.add(segment).add(decoded(segment));
    for (const pair of url.search.slice(1).split('&')) {
      const raw = pair.slice(pair.indexOf('=') + 1);
      values
        .add(pair)
        .add(raw)
        .add(decoded(raw))
        .add(decoded(raw.replace(/\+/g, ' ')));
    }
    for (const [name, item] of url.searchParams) values.add(item).add(`${name}=${item}`);
  } catch {
    // Not a URL: only the whole value is hidden.
  }
  return [...values].filter((part) => part.length >= MIN_SECRET_LENGTH && part !== '/');
}

/** How a masked text finds one form of a secret: the text, and whether base64 characters around it go too. */
interface SecretForm {
  text: string;
  /** A base64 run that encodes the secret from inside a longer text: its edge characters also hold a few of its bits. */
  inside: boolean;
}

/**
 * Base64 and base64url of the bytes: alone (with and without padding), and the runs that stand for
 * them wherever they sit in a longer encoded text (one for each of the three alignments).
 */
function base64Forms(bytes: Buffer): SecretForm[] {
  const forms: SecretForm[] = [
    { text: bytes.toString('base64'), inside: false },
    { text: bytes.toString('base64url'), inside: false },
  ];
  for (let skip = 0; skip < 3; skip += 1) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    // Too short a run would match ordinary text.
    if (whole < 9) continue;
    const aligned = bytes.subarray(skip, skip + whole);
    forms.push(
      { text: aligned.toString('base64'), inside: true },
      { text: aligned.toString('base64url'), inside: true },
    );
  }
  return forms;
}

/**
 * Every way a receiver may write a secret back: as is (found whatever its case), percent-encoded (as
 * a URI component, as a form, every byte, twice), JSON-escaped, base64 and base64url.
 */
function secretForms(secret: string): SecretForm[] {
  const bytes = Buffer.from(secret, 'utf8');
  const component = encodeURIComponent(secret);
  const texts = [
    secret,
    component,
    component.replace(/%20/g, '+'),
    encodeURI(secret),
    encodeURIComponent(component),
    [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/'),
  ];
  return [...texts.map((text) => ({ text, inside: false })), ...base64Forms(bytes)];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One pattern for every form of every secret part of a webhook URL, longest first, case-insensitive;
 * and the forms, for a secret cut off at the end of a text.
 */
function secretPattern(webhookUrl: string): { pattern: RegExp; forms: string[] } {
  const forms = new Map<string, SecretForm>();
  for (const secret of secretValues(webhookUrl))
    for (const form of secretForms(secret)) {
      if (form.text.length < MIN_SECRET_LENGTH) continue;
      const key = form.text.toLowerCase();
      // The same text found inside a longer base64 run too: that wider pattern wins.
      if (!forms.has(key) || form.inside) forms.set(key, form);
    }
  const sorted = [...forms.values()].sort((a, b) => b.text.length - a.text.length);
  const alternatives = sorted.map(({ text, inside }) =>
    inside ? `[A-Za-z0-9+/_-]{0,3}${escapeRegExp(text)}[A-Za-z0-9+/_-]{0,3}={0,2}` : escapeRegExp(text),
  );
  return { pattern: new RegExp(alternatives.join('|'), 'gi'), forms: sorted.map((form) => form.text) };
}

/** ASCII letters lower-cased (the length kept, unlike `toLowerCase`). */
const foldCase = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** The length of the longest start of `form` that ends `text` (the prefix function over both: linear). */
function cutLength(text: string, form: string): number {
  const joined = `${form}\u0000${text}`;
  const longest = new Array<number>(joined.length).fill(0);
  for (let i = 1; i < joined.length; i += 1) {
    let k = longest[i - 1];
    while (k > 0 && joined[i] !== joined[k]) k = longest[k - 1];
    if (joined[i] === joined[k]) k += 1;
    longest[i] = k;
  }
  return longest[joined.length - 1];
}

/** The text with a secret form cut off at its end (where a receiver's answer was cut) masked. */
function maskCutSecret(text: string, forms: string[]): string {
  const folded = foldCase(text);
  let cut = 0;
  for (const form of forms) cut = Math.max(cut, cutLength(folded, foldCase(form)));
  return cut < MIN_SECRET_LENGTH ? text : `${text.slice(0, text.length - cut)}${MASK}`;
}

/** The longest text kept of an error or of a receiver's answer. */
export const MAX_ERROR_LENGTH = 300;

/**
 * A short, single-line error text that never shows the webhook URL or any part of it that may be
 * secret, nor the Authorization made of its credentials, in any case or encoding (a receiver may echo
 * its URL, token or Authorization back: raw, re-cased, percent-encoded, JSON-escaped, base64 or
 * base64url), nor the start of one where the text was cut. `prefix`, Arrbiter's own words, is not
 * masked (a path segment such as `hooks` would be).
 */
export function safeErrorText(text: string, webhookUrl: string, prefix = ''): string {
  const { pattern, forms } = secretPattern(webhookUrl);
  let result = `${prefix}${maskCutSecret(text.replace(pattern, MASK), forms)}`;
  // eslint-disable-next-line no-control-regex
  result = result.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return result.length > MAX_ERROR_LENGTH ? `${result.slice(0, MAX_ERROR_LENGTH - 1)}…` : result;
}
