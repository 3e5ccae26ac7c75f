/** What a client with separate host, port and URL-base fields enters, derived from a Proxy URL. */
export interface ConnectionFields {
  host: string;
  port: number;
  /** Use SSL / HTTPS. */
  ssl: boolean;
  /** `/proxy/<app_slug>` (plus any path of PUBLIC_URL). */
  urlBase: string;
}

export function connectionFields(proxyUrl: string): ConnectionFields | null {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch {
    return null;
  }
  const ssl = url.protocol === 'https:';
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : ssl ? 443 : 80,
    ssl,
    urlBase: url.pathname.replace(/\/+$/, ''),
  };
}
