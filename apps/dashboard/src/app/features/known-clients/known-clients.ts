import type {
  FitMissingCall,
  FitResult,
  KnownCaller,
  KnownClientCallSourceDto,
  KnownClientSourceDto,
  KnownClientSummaryDto,
} from '@arrbiter/contracts';

/** `radarr` → `Radarr`. */
export function serviceTypeName(type: string): string {
  return type ? type[0].toUpperCase() + type.slice(1) : type;
}

/** `1 call`, `3 calls`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The known client written for a template, as the server picks it when none is named: the one whose id,
 * or one of whose template names, is the template's name, in any case.
 */
export function clientForTemplate(
  templateName: string | null | undefined,
  clients: readonly KnownClientSummaryDto[],
): KnownClientSummaryDto | undefined {
  const name = templateName?.trim().toLowerCase();
  if (!name) return undefined;
  return clients.find((c) => [c.id, ...c.templateNames].some((n) => n.toLowerCase() === name));
}

/**
 * Where a call is made, on the web: the file at the commit its calls were read from
 * (`${repository}/blob/${commit}/${file}`); the library's own repository when a library makes the call.
 * Null when the repository or its revision is unknown.
 */
export function sourceUrl(client: KnownClientSourceDto | undefined, source: KnownClientCallSourceDto): string | null {
  const repository = source.repository ?? client?.repository;
  const revision = source.repository ? (source.commit ?? source.ref) : (client?.commit ?? client?.ref);
  if (!repository || !revision || !/^https?:\/\//.test(repository)) return null;
  const base = repository.replace(/\/+$/, '').replace(/\.git$/, '');
  const file = source.file.replace(/^\/+/, '');
  return `${base}/blob/${revision}/${file}`;
}

/** The client's source as its calls were read: the repository's tree at that commit; null when unknown. */
export function releaseUrl(source: KnownClientSourceDto | undefined): string | null {
  const revision = source?.commit || source?.ref;
  if (!source || !revision || !/^https?:\/\//.test(source.repository)) return null;
  return `${source.repository.replace(/\/+$/, '').replace(/\.git$/, '')}/tree/${revision}`;
}

/** `https://github.com/owner/name.git` → `owner/name`. */
export function repositoryName(repository: string): string {
  return repository
    .replace(/^[a-z]+:\/\/[^/]+\//i, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

/** `apps/server/src/radarr.helper.ts` → `radarr.helper.ts`. */
export function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** "Maintainerr makes 16 calls to Radarr; this allowlist refuses 9 of them." */
export function fitSentence(fit: FitResult): string {
  const target = serviceTypeName(fit.serviceType);
  if (fit.calls === 0) return `${fit.clientName} makes no call to ${target} that the catalogue knows of.`;
  const makes = `${fit.clientName} makes ${plural(fit.calls, 'call')} to ${target}`;
  const refused = fit.missing.length;
  if (fit.calls === 1) return `${makes}; this allowlist ${refused === 0 ? 'lets it through' : 'refuses it'}.`;
  if (refused === 0) return `${makes}; this allowlist lets all of them through.`;
  return `${makes}; this allowlist refuses ${refused} of them.`;
}

/** "covers 7 of 16 calls, 9 missing" (and the unused grants when there are some). */
export function coverageLine(fit: FitResult): string {
  const parts = [`covers ${fit.covered} of ${plural(fit.calls, 'call')}`, `${fit.missing.length} missing`];
  if (fit.unused.length > 0) parts.push(`${fit.unused.length} unused ${fit.unused.length === 1 ? 'grant' : 'grants'}`);
  return parts.join(', ');
}

/** The refused calls that one grant lets through: the calls resolving to the same method and route. */
export interface MissingRoute {
  method: string;
  route: string;
  calls: FitMissingCall[];
}

/** Refused calls grouped by the grant that lets them through, in the server's order. */
export function missingRoutes(missing: readonly FitMissingCall[]): MissingRoute[] {
  const groups = new Map<string, MissingRoute>();
  for (const call of missing) {
    const key = `${call.method} ${call.route}`;
    const group = groups.get(key);
    if (group) group.calls.push(call);
    else groups.set(key, { method: call.method, route: call.route, calls: [call] });
  }
  return [...groups.values()];
}

/**
 * A refused call's known callers as a warning shows them: the app's own client (its template's) first and
 * in full, the others behind a disclosure; with no own client, up to two in full.
 */
export function splitCallers(
  callers: readonly KnownCaller[],
  ownClient: string | undefined,
): { shown: KnownCaller[]; more: KnownCaller[] } {
  const own = callers.filter((c) => c.client === ownClient);
  if (own.length > 0) return { shown: own, more: callers.filter((c) => c.client !== ownClient) };
  return callers.length <= 2 ? { shown: [...callers], more: [] } : { shown: [], more: [...callers] };
}
