import type {
  KnownClientCallDto,
  KnownClientDto,
  KnownClientSummaryDto,
  NamedCall,
  RoutePurposeDto,
  RouteRiskDto,
  ServiceDto,
} from '@arrbiter/contracts';

/** The steps of the flow, in order; the URL's `step` names one. */
export const CONNECT_STEPS = ['client', 'services', 'review', 'done'] as const;
export type ConnectStep = (typeof CONNECT_STEPS)[number];

export const STEP_LABELS: Record<ConnectStep, string> = {
  client: 'Client',
  services: 'Services',
  review: 'Review',
  done: 'Connect',
};

/** The order the review groups calls in. */
export const PURPOSES: readonly RoutePurposeDto[] = [
  'read library',
  'add/search',
  'edit library',
  'delete',
  'settings',
  'system',
];

/** `Overseerr` → `OV`, `cross-seed` → `CS`, `Homepage` → `HO`: an avatar without icon files. */
export function initials(name: string): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  if (words.length >= 2) return (words[0][0] + words[1][0]).toUpperCase();
  return (words[0] ?? '?').slice(0, 2).toUpperCase();
}

/** The service types a client calls (those with at least one call), in alphabetical order. */
export function clientTypes(client: Pick<KnownClientSummaryDto, 'calls'>): string[] {
  return Object.entries(client.calls)
    .filter(([, n]) => n > 0)
    .map(([type]) => type)
    .sort();
}

/** Clients whose name, id or service types contain the query (any case). */
export function searchClients(clients: readonly KnownClientSummaryDto[], query: string): KnownClientSummaryDto[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...clients];
  return clients.filter(
    (c) => c.name.toLowerCase().includes(q) || c.id.includes(q) || clientTypes(c).some((t) => t.includes(q)),
  );
}

/** The services a client can use: those of a type it calls. */
export function matchingServices(client: KnownClientSummaryDto, services: readonly ServiceDto[]): ServiceDto[] {
  const types = new Set(clientTypes(client));
  return services.filter((s) => types.has(s.type));
}

/** One grant the review shows: a method and route, with the client's calls that need it. */
export interface ReviewCall {
  /** `get /api/v3/movie/{id}`: unique per service. */
  key: string;
  method: string;
  /** What the grant writes: the call's route, else its exact path. */
  route: string;
  /** The first call's path as sent, when it differs from the route. */
  sample: string | null;
  note: string | null;
  calls: KnownClientCallDto[];
  risk: RouteRiskDto;
}

export interface ReviewGroup {
  purpose: RoutePurposeDto;
  calls: ReviewCall[];
}

/** The client's calls to one service type, one per grant, grouped by purpose in `PURPOSES` order. */
export function reviewGroups(calls: readonly KnownClientCallDto[]): ReviewGroup[] {
  const byKey = new Map<string, ReviewCall>();
  for (const call of calls) {
    const route = call.route ?? call.path;
    const key = `${call.method} ${route}`;
    const found = byKey.get(key);
    if (found) {
      found.calls.push(call);
      if (!found.note && call.note) found.note = call.note;
    } else {
      byKey.set(key, {
        key,
        method: call.method,
        route,
        sample: call.path !== route ? call.path : null,
        note: call.note ?? null,
        calls: [call],
        risk: call.risk,
      });
    }
  }
  return PURPOSES.map((purpose) => ({
    purpose,
    calls: [...byKey.values()].filter((c) => c.risk.purpose === purpose),
  })).filter((g) => g.calls.length > 0);
}

/**
 * One line on what breaks when a sensitive call is left out: the client's function that makes it gets
 * 403, and what the catalogue says it is for (the call's note, which the line then stands in for).
 */
export function withoutIt(clientName: string, call: ReviewCall): string {
  const functions = [...new Set(call.calls.map((c) => c.source.function))].join(', ');
  const note = call.note?.trim().replace(/[.!?]$/, '');
  return `Without it, ${clientName}'s ${functions} gets 403${note ? `: ${note}` : ''}.`;
}

/** The key of a ticked sensitive call: service and grant. */
export function tickKey(serviceId: string, call: Pick<ReviewCall, 'key'>): string {
  return `${serviceId} ${call.key}`;
}

/** The ticked sensitive calls as the connect request names them. */
export function sensitiveIncludes(
  client: KnownClientDto,
  serviceIds: readonly string[],
  services: readonly ServiceDto[],
  ticked: ReadonlySet<string>,
): NamedCall[] {
  const named: NamedCall[] = [];
  for (const serviceId of serviceIds) {
    const type = services.find((s) => s.id === serviceId)?.type;
    if (!type) continue;
    for (const group of reviewGroups(client.services[type] ?? [])) {
      for (const call of group.calls) {
        if (call.risk.sensitive && ticked.has(tickKey(serviceId, call)))
          named.push({ method: call.method, route: call.route, serviceId });
      }
    }
  }
  return named;
}

/** The step the URL names, else the first. */
export function stepOf(value: string | null | undefined): ConnectStep {
  return CONNECT_STEPS.find((s) => s === value) ?? 'client';
}

/** `a,b` → `['a', 'b']`, without blanks or repeats. */
export function idList(value: string | null | undefined): string[] {
  return [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}
