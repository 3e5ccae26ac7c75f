/**
 * Endpoints the dashboard uses that a server may not have yet. A step that needs one is skipped only when
 * the server answers 404 from its router for it ("Cannot GET …"), never for any other answer.
 */
export const OPTIONAL = {
  ping: ['GET', '/api/admin/v1/services/{serviceId}/ping'],
  templates: ['GET', '/api/admin/v1/templates'],
  endpoints: ['GET', '/api/admin/v1/proxies/{proxyId}/endpoints'],
  revisions: ['GET', '/api/admin/v1/proxies/{proxyId}/revisions'],
  diff: ['GET', '/api/admin/v1/proxies/{proxyId}/revisions/not-a-uuid/diff'],
  restore: ['POST', '/api/admin/v1/proxies/{proxyId}/revisions/not-a-uuid/restore'],
  grant: ['POST', '/api/admin/v1/warnings/not-a-uuid/grant'],
  dismiss: ['POST', '/api/admin/v1/warnings/not-a-uuid/dismiss'],
  learning: ['DELETE', '/api/admin/v1/proxies/not-a-uuid/learning'],
  changes: ['GET', '/api/admin/v1/changes'],
  repository: ['GET', '/api/admin/v1/settings/template-repository'],
  saveAsTemplate: ['POST', '/api/admin/v1/apps/not-a-uuid/save-as-template'],
} as const;
export type Optional = keyof typeof OPTIONAL;

/** Where a missing optional endpoint's URL shows in the browser (its 404s are expected then). */
export const OPTIONAL_URLS: Record<Optional, RegExp> = {
  ping: /\/services\/[^/]+\/ping$/,
  templates: /\/api\/admin\/v1\/templates$/,
  endpoints: /\/proxies\/[^/]+\/endpoints(\?|$)/,
  revisions: /\/proxies\/[^/]+\/revisions(\?|$)/,
  diff: /\/revisions\/[^/]+\/diff$/,
  restore: /\/revisions\/[^/]+\/restore$/,
  grant: /\/warnings\/[^/]+\/grant$/,
  dismiss: /\/warnings\/[^/]+\/dismiss$/,
  learning: /\/proxies\/[^/]+\/learning$/,
  changes: /\/api\/admin\/v1\/changes(\?|$)/,
  repository: /\/settings\/template-repository$/,
  saveAsTemplate: /\/apps\/[^/]+\/save-as-template$/,
};

/** Which optional endpoints the server does not route (404 "Cannot …"; any other answer means it is there). */
export async function missingEndpoints(serverUrl: string): Promise<Set<Optional>> {
  const missing = new Set<Optional>();
  for (const name of Object.keys(OPTIONAL) as Optional[]) {
    const [method, template] = OPTIONAL[name];
    const path = template.replace('{proxyId}', 'not-a-uuid').replace('{serviceId}', 'not-a-uuid');
    const response = await fetch(`${serverUrl}${path}`, { method });
    const body = (await response.json().catch(() => ({}))) as { message?: unknown };
    if (response.status === 404 && typeof body.message === 'string' && body.message.startsWith('Cannot ')) {
      missing.add(name);
    }
  }
  return missing;
}

/** A browser console error that is a 404 from an optional endpoint the server lacks. */
export function isMissingEndpointError(error: string, missing: ReadonlySet<Optional>): boolean {
  return (
    /status of 404/.test(error) && [...missing].some((name) => OPTIONAL_URLS[name].test(error.split(' ').pop() ?? ''))
  );
}
