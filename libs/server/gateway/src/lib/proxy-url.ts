/** The request target of a proxy call, split without decoding anything. */
export interface ProxyTarget {
  slug: string;
  /** Everything after `/proxy/{slug}`, raw. */
  rawPath: string;
  /** The raw query string (without `?`), possibly empty. */
  rawQuery: string;
}

const PREFIX = '/proxy/';

/** Splits `/proxy/{slug}/{path}?{query}`; undefined when the URL is not a proxy URL. */
export function splitProxyUrl(url: string): ProxyTarget | undefined {
  if (!url.startsWith(PREFIX)) return undefined;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const slash = path.indexOf('/', PREFIX.length);
  const slug = slash < 0 ? path.slice(PREFIX.length) : path.slice(PREFIX.length, slash);
  return { slug, rawPath: slash < 0 ? '' : path.slice(slash), rawQuery };
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * Removes every credential query parameter — `apikey`, and `access_token`, which SignalR clients send
 * (names in any case, in any encoding) — and returns the key: the first `apikey`, else the first
 * `access_token`. Every other parameter is kept byte for byte, in order, repeated and dotted ones
 * included.
 */
export function takeApiKey(rawQuery: string): { query: string; apiKey?: string } {
  if (rawQuery === '') return { query: '' };
  let apiKey: string | undefined;
  let accessToken: string | undefined;
  const kept: string[] = [];
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeName(eq < 0 ? pair : pair.slice(0, eq))
      .trim()
      .toLowerCase();
    if (name === 'apikey') {
      apiKey ??= decodeName(eq < 0 ? '' : pair.slice(eq + 1));
      continue;
    }
    if (name === 'access_token') {
      accessToken ??= decodeName(eq < 0 ? '' : pair.slice(eq + 1));
      continue;
    }
    kept.push(pair);
  }
  return { query: kept.join('&'), apiKey: apiKey ?? accessToken };
}
