/** A base URL's problem, or the normalised URL (no trailing slash). */
export type BaseUrlCheck = { ok: true; url: string } | { ok: false; problem: string };

/**
 * Base URLs: http(s), no credentials, query or fragment, and not ending in an API prefix
 * such as `/api` or `/api/v3` (the proxy joins the client's API path to it).
 */
export function checkBaseUrl(value: string): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { ok: false, problem: 'baseUrl must be an absolute http(s) URL, such as http://radarr:7878' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, problem: 'baseUrl must use http or https' };
  if (url.username || url.password)
    return { ok: false, problem: 'baseUrl must not contain credentials; give the API key separately' };
  if (url.search || url.hash || value.includes('?') || value.includes('#')) {
    return { ok: false, problem: 'baseUrl must not contain a query or a fragment' };
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (/(^|\/)api(\/v\d+)?$/i.test(path)) {
    return {
      ok: false,
      problem: `baseUrl must not end in an API prefix (${path.slice(path.toLowerCase().lastIndexOf('/api'))}): give the address up to the URL base, e.g. ${url.origin}${path.replace(/\/api(\/v\d+)?$/i, '') || ''}`,
    };
  }
  return { ok: true, url: `${url.origin}${path}` };
}
