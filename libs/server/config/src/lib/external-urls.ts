import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { AppConfig } from './app-config';
import { TrustedProxies } from './trusted-proxies';

/** What is read from a request (an Express request or the proxy route's bare `IncomingMessage`). */
export interface ExternalRequest {
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly remoteAddress?: string; readonly encrypted?: boolean };
}

/** A host name (or bracketed IPv6 address) and an optional port, as `Host` carries it. */
const HOST = /^(?:[a-z0-9](?:[a-z0-9._-]{0,252})|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/;
/** A URL path prefix of plain segments (`/arrbiter`, `/apps/arrbiter`). */
const PREFIX = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const comma = text.indexOf(',');
  return (comma < 0 ? text : text.slice(0, comma)).trim();
}

/** `host[:port]` in lower case without the scheme's default port; undefined when it is no host. */
function normalHost(value: string | undefined, protocol: string): string | undefined {
  if (value === undefined) return undefined;
  const host = value.toLowerCase();
  if (!HOST.test(host)) return undefined;
  const defaultPort = protocol === 'https' ? ':443' : ':80';
  return host.endsWith(defaultPort) ? host.slice(0, -defaultPort.length) : host;
}

/** A path prefix without its trailing slash ('' for none); undefined when it is not a plain path. */
export function normalPrefix(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return PREFIX.test(trimmed) ? trimmed : undefined;
}

/** `PUBLIC_URL`'s path without its trailing slash: '' (none, or unset) or `/arrbiter`. */
export function publicPrefixOf(config: Pick<AppConfig, 'publicUrl'>): string {
  return config.publicUrl === undefined ? '' : new URL(config.publicUrl).pathname.replace(/\/+$/, '');
}

/**
 * The one place that says where this server is reached from outside (it works at any address): `PUBLIC_URL` when it is
 * set; otherwise each request's own scheme, host and port, with `X-Forwarded-Proto`, `-Host` and
 * `-Prefix` believed only from a `TRUST_PROXY` peer (the rule Express applies to `req.protocol` and
 * `req.host`, with the same compiled `TRUST_PROXY` function, here usable on the proxy route's bare
 * requests too). Proxy URLs shown to admins, the scrubber's replacement URL, redirects, the dashboard's
 * base and cookies' `Secure` and `Path` come from here.
 */
@Injectable()
export class ExternalUrls {
  /** Whether `PUBLIC_URL` is set (then it alone says where the server is). */
  readonly configured: boolean;
  private readonly publicUrl: string | undefined;
  private readonly publicOrigin: string | undefined;
  private readonly publicPrefix: string;
  private readonly fallbackHost: string;

  constructor(
    private readonly config: AppConfig,
    private readonly trusted: TrustedProxies,
  ) {
    this.publicUrl = config.publicUrl;
    this.publicOrigin = config.publicOrigin;
    this.configured = config.publicUrl !== undefined;
    this.publicPrefix = publicPrefixOf(config);
    this.fallbackHost = `localhost:${config.port}`;
  }

  /** Whether the peer is a `TRUST_PROXY` reverse proxy, whose `X-Forwarded-*` headers count. */
  private fromTrustedProxy(request: ExternalRequest): boolean {
    return this.trusted.trusts(request.socket.remoteAddress ?? '', 0);
  }

  /** `http` or `https` as the client used it (`X-Forwarded-Proto` only from a trusted proxy). */
  requestProtocol(request: ExternalRequest): 'http' | 'https' {
    const own = request.socket.encrypted ? 'https' : 'http';
    const forwarded = request.headers['x-forwarded-proto'];
    if (forwarded === undefined || !this.fromTrustedProxy(request)) return own;
    const value = first(forwarded)?.toLowerCase();
    return value === 'https' || value === 'http' ? value : own;
  }

  /**
   * The request's own origin (`http://nas:18080`), as the browser names it in `Origin`: scheme, then
   * `X-Forwarded-Host` from a trusted proxy or else `Host`. Undefined without a usable host.
   */
  requestOrigin(request: ExternalRequest): string | undefined {
    const protocol = this.requestProtocol(request);
    const forwarded = request.headers['x-forwarded-host'];
    const raw = forwarded !== undefined && this.fromTrustedProxy(request) ? first(forwarded) : request.headers.host;
    const host = normalHost(raw, protocol);
    return host === undefined ? undefined : `${protocol}://${host}`;
  }

  /** The external origin: `PUBLIC_URL`'s, else the request's own (else `http://localhost:PORT`). */
  originOf(request: ExternalRequest): string {
    return this.publicOrigin ?? this.requestOrigin(request) ?? `http://${this.fallbackHost}`;
  }

  /**
   * The path the server lives under for this request, '' or `/arrbiter`: `PUBLIC_URL`'s path, else
   * `X-Forwarded-Prefix` from a trusted proxy.
   */
  prefixOf(request: ExternalRequest): string {
    if (this.configured) return this.publicPrefix;
    const forwarded = request.headers['x-forwarded-prefix'];
    if (forwarded === undefined || !this.fromTrustedProxy(request)) return '';
    return normalPrefix(first(forwarded)) ?? '';
  }

  /** The external URL, no trailing slash: `PUBLIC_URL`, else the request's origin and prefix. */
  urlOf(request: ExternalRequest): string {
    return this.publicUrl ?? `${this.originOf(request)}${this.prefixOf(request)}`;
  }

  /** Whether cookies set in answer to this request are `Secure`: `PUBLIC_URL`'s scheme, else the request's. */
  secure(request: ExternalRequest): boolean {
    return this.configured ? this.config.secureCookies : this.requestProtocol(request) === 'https';
  }

  /** A cookie's `Path` for a path of the server (`/api/auth` → `/arrbiter/api/auth`). */
  cookiePath(request: ExternalRequest, path = '/'): string {
    const prefix = this.prefixOf(request);
    if (prefix === '') return path;
    return path === '/' ? prefix : `${prefix}${path}`;
  }
}
