import type { ClientInstructionsDto, InstructionFieldDto, InstructionSnippetDto } from '@arrbiter/contracts';
import type { KnownClient, KnownClientSetup, KnownClientSetupPart, KnownServiceType } from './known-client';

/** The proxy a client is being set up for. */
export interface InstructionTarget {
  serviceId: string;
  proxyId: string;
  serviceName: string;
  serviceType: string;
  /** The Proxy URL (`<external URL>/proxy/<slug>`), as `ExternalUrls` gives it for the request. */
  proxyUrl: string;
  /** The proxy's key; null for a reader who may not see keys (a viewer): then shown as {@link MASKED_KEY}. */
  key: string | null;
}

/** What a viewer sees in place of a key. */
export const MASKED_KEY = '••••';

/** The id and name the generic instructions carry when no client is named. */
export const OTHER_CLIENT = { id: 'other', name: 'Other / not listed' } as const;

/**
 * The placeholders a client's `setup` may use in labels, values, snippets and notes (data/README.md):
 * - `url`: the Proxy URL, no trailing slash (`https://arr.example.com/arrbiter/proxy/overseerr`);
 * - `scheme` (`http`/`https`), `host` (its host name or bracketed IPv6 address), `port` (the explicit port,
 *   else 443 for https and 80 for http);
 * - `ssl` (`true`/`false`, for configuration files) and `sslOnOff` (`on`/`off`, for a checkbox);
 * - `urlBase`: the Proxy URL's path (`/arrbiter/proxy/overseerr`, `PUBLIC_URL`'s prefix included) and
 *   `urlBaseNoLeadingSlash` (`arrbiter/proxy/overseerr`, for a field that shows its leading `/` itself);
 * - `apiKey`: the proxy's key (masked for viewers; a field holding it is a secret);
 * - `serviceName`, `serviceType` (`radarr`), `serviceTypeName` (`Radarr`).
 */
export const PLACEHOLDERS = [
  'url',
  'scheme',
  'host',
  'port',
  'ssl',
  'sslOnOff',
  'urlBase',
  'urlBaseNoLeadingSlash',
  'apiKey',
  'serviceName',
  'serviceType',
  'serviceTypeName',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/**
 * Placeholders whose values come from a closed set of plain tokens (a service type, a port number, a
 * boolean): written bare in a snippet, where they may be a YAML key, a TOML table name or a number.
 * Every other placeholder is written as a quoted string of the snippet's language.
 */
const BARE_IN_SNIPPETS: ReadonlySet<Placeholder> = new Set<Placeholder>(['serviceType', 'port', 'ssl', 'sslOnOff']);
const PLAIN_TOKEN = /^[a-z0-9]+$/;
const PLACEHOLDER = /\{\{([A-Za-z]+)\}\}/g;

const TYPE_NAMES: Record<KnownServiceType, string> = {
  sonarr: 'Sonarr',
  radarr: 'Radarr',
  lidarr: 'Lidarr',
  readarr: 'Readarr',
  prowlarr: 'Prowlarr',
  whisparr: 'Whisparr',
};

/** The instructions for a client the catalogue holds none for, or for no client at all. */
const GENERIC: KnownClientSetup = {
  source: {
    title: 'Servarr wiki: the API key (Settings → General → Security)',
    url: 'https://wiki.servarr.com/sonarr/settings#security',
  },
  fields: [
    { label: 'URL', value: '{{url}}' },
    { label: 'Host', value: '{{host}}' },
    { label: 'Port', value: '{{port}}' },
    { label: 'Use SSL', value: '{{sslOnOff}}' },
    { label: 'URL Base', value: '{{urlBase}}' },
    { label: 'API Key', value: '{{apiKey}}' },
  ],
  notes: [
    'Put these where the client asks for its {{serviceTypeName}} server: a single address field takes the URL; separate fields take the host, port, SSL and URL base (also called base URL or base path).',
    'The API Key goes where the client asks for the {{serviceTypeName}} API key: Arrbiter checks it and sends the service its own key.',
    "The client's server makes the calls: the URL must be reachable from the client's host or container.",
    'A client with no URL base setting (only a host and a port) needs a reverse-proxy rewrite giving the proxy an address of its own, e.g. an nginx `server { listen 8990; location / { proxy_pass {{url}}/; } }`: point the client at that host and port, and every path it sends reaches {{urlBase}}/….',
  ],
};

/** The values of the placeholders for one target. */
export function placeholderValues(target: InstructionTarget): Record<Placeholder, string> {
  const parsed = new URL(target.proxyUrl);
  const scheme = parsed.protocol.replace(/:$/, '');
  const https = scheme === 'https';
  const urlBase = parsed.pathname.replace(/\/+$/, '');
  return {
    url: `${parsed.origin}${urlBase}`,
    scheme,
    host: parsed.hostname,
    port: parsed.port !== '' ? parsed.port : https ? '443' : '80',
    ssl: https ? 'true' : 'false',
    sslOnOff: https ? 'on' : 'off',
    urlBase,
    urlBaseNoLeadingSlash: urlBase.replace(/^\/+/, ''),
    apiKey: target.key ?? MASKED_KEY,
    serviceName: target.serviceName,
    serviceType: target.serviceType,
    serviceTypeName: TYPE_NAMES[target.serviceType as KnownServiceType] ?? target.serviceType,
  };
}

function isPlaceholder(name: string): name is Placeholder {
  return (PLACEHOLDERS as readonly string[]).includes(name);
}

/** The placeholders a text uses that are not in {@link PLACEHOLDERS} (the catalogue's spec requires none). */
export function unknownPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]).filter((name) => !isPlaceholder(name));
}

/** The text with its placeholders filled in as they are (labels, field values, notes). */
function fill(text: string, values: Record<Placeholder, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (isPlaceholder(name) ? values[name] : whole));
}

/**
 * Characters a quoted YAML or TOML string must not hold as they are: C0 and C1 controls, DEL, the line
 * and paragraph separators, the byte-order mark, and lone surrogates (replaced: neither format can hold one).
 */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex -- the control characters are what it finds
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

/** A double-quoted string, valid in YAML, TOML, JSON and INI readers that unquote with escapes. */
function doubleQuoted(value: string): string {
  const escaped = value
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(UNPRINTABLE, (c) => {
      const code = c.charCodeAt(0);
      const unit = code >= 0xd800 && code <= 0xdfff ? 0xfffd : code;
      return `\\u${unit.toString(16).padStart(4, '0')}`;
    });
  return `"${escaped}"`;
}

/** A value as its snippet's language writes it. */
function snippetValue(name: Placeholder, value: string, language: InstructionSnippetDto['language']): string {
  if (language === 'text') return value;
  if (BARE_IN_SNIPPETS.has(name) && PLAIN_TOKEN.test(value)) return value;
  if (language === 'json') return JSON.stringify(value);
  return doubleQuoted(value);
}

function renderSnippet(
  snippet: NonNullable<KnownClientSetupPart['snippet']>,
  values: Record<Placeholder, string>,
): InstructionSnippetDto {
  const text = snippet.text.replace(PLACEHOLDER, (whole, name: string) =>
    isPlaceholder(name) ? snippetValue(name, values[name], snippet.language) : whole,
  );
  return { filename: snippet.filename, language: snippet.language, text };
}

/** The setup for one service type: the default's parts, each replaced by the service type's where it has one. */
export function setupFor(
  setup: KnownClientSetup,
  serviceType: string,
): Required<Omit<KnownClientSetupPart, 'snippet'>> & Pick<KnownClientSetupPart, 'snippet'> {
  const part: KnownClientSetupPart = setup.byServiceType?.[serviceType as KnownServiceType] ?? {};
  const snippet = part.snippet ?? setup.snippet;
  return {
    source: part.source ?? setup.source,
    fields: part.fields ?? setup.fields,
    notes: part.notes ?? setup.notes,
    ...(snippet ? { snippet } : {}),
  };
}

/**
 * What to type into a client's own settings to use one proxy, with the real values filled in: the
 * client's `setup` from the catalogue, or the generic instructions (`specific: false`) for a client
 * without one and for none (`client` null: "Other / not listed"). With `target.key` null (a viewer), the
 * key is shown as `••••`. Pure: no I/O.
 */
export function renderInstructions(client: KnownClient | null, target: InstructionTarget): ClientInstructionsDto {
  const values = placeholderValues(target);
  const setup = setupFor(client?.setup ?? GENERIC, target.serviceType);
  const fields: InstructionFieldDto[] = setup.fields.map((field) => ({
    label: fill(field.label, values),
    value: fill(field.value, values),
    secret: field.value.includes('{{apiKey}}'),
  }));
  const source =
    client && !client.setup ? { title: `${client.name}'s documentation`, url: client.projectUrl } : setup.source;
  return {
    serviceId: target.serviceId,
    proxyId: target.proxyId,
    client: client?.id ?? OTHER_CLIENT.id,
    clientName: client?.name ?? OTHER_CLIENT.name,
    specific: client?.setup !== undefined,
    fields,
    ...(setup.snippet ? { snippet: renderSnippet(setup.snippet, values) } : {}),
    notes: setup.notes.map((note) => fill(note, values)),
    source: { title: source.title, url: source.url },
  };
}
