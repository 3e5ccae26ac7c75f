/**
 * Endpoints that hand out secrets (the instance's own API key, passwords of download clients,
 * indexers and notifications, backups with all of them) or control the server itself. Matched on
 * the path after `/api/{version}`.
 */
const SENSITIVE = [
  /^\/config\/host(\/|$)/,
  /^\/system\/(backup|restart|shutdown)(\/|$)/,
  /^\/(downloadclient|indexer|indexerproxy|notification|applications|importlist|metadata|connect)(\/|$)/,
  /^\/(update|filesystem|command|log\/file|authentication|user)(\/|$)/,
];

/**
 * Outside the API: the web UI's start-up script and its JSON form (Radarr's hand the UI the API key),
 * backups, log files and the UI's SignalR hub.
 */
const SENSITIVE_OUTSIDE_API = /^\/(initialize\.json|initialize\.js)$|^\/(backup|logfile|signalr)(\/|$)/;

/**
 * Whether `path` (a request path or a route) hands out secrets or controls the server: flagged in the
 * permission catalog, never forwarded by learning mode.
 */
export function isSensitive(path: string): boolean {
  const lower = path.toLowerCase();
  if (SENSITIVE_OUTSIDE_API.test(lower)) return true;
  const rest = lower.replace(/^\/api(\/v\d+)?/, '');
  return SENSITIVE.some((pattern) => pattern.test(rest));
}
