import { BadGatewayException, Injectable, UnprocessableEntityException } from '@nestjs/common';
import { BodyTooLargeError, readLimitedText } from '@arrbiter/server/http';

const TIMEOUT_MS = 10_000;
/** What a discovery answer may weigh (`/api`, `system/status`): a Servarr's are a few hundred bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** What an upstream's own OpenAPI description may weigh (the real ones are about 300 KB). */
export const MAX_OPENAPI_BYTES = 10 * 1024 * 1024;

/** What an upstream says about itself. */
export interface Discovery {
  name: string;
  type: string;
  /** Current first, then deprecated. */
  apiVersions: string[];
  upstreamVersion: string;
}

/** Why a connection to an upstream failed: the short cause code (`ECONNREFUSED`, `bad port`…) and a sentence. */
export interface NetworkFailure {
  code: string;
  reason: string;
}

const TLS_CODE = /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|EPROTO/;

/** Classifies a failed `fetch` (its `cause` carries the socket's code) into one human sentence. */
export function explainNetworkError(error: unknown, timeoutMs = TIMEOUT_MS): NetworkFailure {
  type Cause = { code?: string; message?: string; errors?: { code?: string }[] };
  const cause = (error as { cause?: Cause }).cause;
  const name = (error as Error).name;
  const code =
    cause?.code ?? cause?.errors?.find((e) => e.code)?.code ?? (cause?.message === 'bad port' ? 'bad port' : '');
  const message = cause?.message ?? (error as Error).message ?? String(error);
  if (name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    return { code: code || 'timeout', reason: `nothing answered within ${timeoutMs / 1000} s (timeout)` };
  }
  switch (code) {
    case 'bad port':
      return { code, reason: 'the port is not valid: it is reserved for another protocol and blocked (bad port)' };
    case 'ECONNREFUSED':
      return {
        code,
        reason: 'nothing answered, the connection was refused (ECONNREFUSED): is the service running on that port?',
      };
    case 'ENOTFOUND':
      return { code, reason: 'the host name was not found (DNS lookup failed, ENOTFOUND)' };
    case 'EAI_AGAIN':
      return { code, reason: 'the host name could not be looked up right now (DNS lookup failed, EAI_AGAIN)' };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { code, reason: `the host cannot be reached from here (no network route, ${code})` };
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return { code, reason: `the connection was closed before an answer (${code})` };
  }
  if (TLS_CODE.test(code)) {
    return {
      code,
      reason: `the secure (HTTPS) connection failed (${code}): check the certificate, or use http:// if the service does not speak HTTPS`,
    };
  }
  return { code: code || 'network', reason: code ? `${message} (${code})` : message };
}

/** "Arrbiter could not connect to 127.0.0.1 port 1: …", kept whole in the exception's `cause`. */
function unreachable(baseUrl: string, error: unknown, verb = 'connect to'): BadGatewayException {
  const url = new URL(baseUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const failure = explainNetworkError(error);
  return new BadGatewayException(`Arrbiter could not ${verb} ${url.hostname} port ${port}: ${failure.reason}`, {
    cause: failure,
  });
}

/** Talks to a Servarr's own API with its own key (service discovery, OpenAPI descriptions). */
@Injectable()
export class ServarrClient {
  /**
   * GET `{base}{path}` with the key; network failures become 502, a refused key 422, and a body over
   * `maxBytes` 422 (counted as it arrives: the transfer stops there, declared length or not).
   */
  async getJson(
    baseUrl: string,
    path: string,
    apiKey: string,
    maxBytes = MAX_BODY_BYTES,
  ): Promise<{ status: number; body: unknown }> {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        headers: { 'X-Api-Key': apiKey, Accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw unreachable(baseUrl, error);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new UnprocessableEntityException(
        `${baseUrl}${path} redirects to ${response.headers.get('location') ?? 'another address'}: check the base URL and URL base`,
      );
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new UnprocessableEntityException(
        `${new URL(baseUrl).host} refused the API key (HTTP ${response.status}): copy it again from the service's Settings → General`,
      );
    }
    let text: string;
    try {
      text = await readLimitedText(response, maxBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        const size = error.declared ? `${error.bytes} bytes` : `more than ${maxBytes} bytes`;
        throw new UnprocessableEntityException(`${path} answered with ${size}: not a Servarr`);
      }
      throw unreachable(baseUrl, error, 'read the answer of');
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  }

  /** `GET {base}/ping` (no key needed): whether the upstream answers now, and how fast. */
  async ping(
    baseUrl: string,
    timeoutMs = 5_000,
  ): Promise<{ reachable: boolean; latencyMs: number | null; error: string | null }> {
    const started = performance.now();
    try {
      const response = await fetch(`${baseUrl}/ping`, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      const latencyMs = Math.round(performance.now() - started);
      if (response.ok) return { reachable: true, latencyMs, error: null };
      return { reachable: false, latencyMs, error: `/ping answered HTTP ${response.status}` };
    } catch (error) {
      return { reachable: false, latencyMs: null, error: explainNetworkError(error, timeoutMs).reason };
    }
  }

  /**
   * Discovers a Servarr: `GET {base}/api` for the API versions, then
   * `GET {base}/api/{current}/system/status` for its name, type and version.
   */
  async discover(baseUrl: string, apiKey: string): Promise<Discovery> {
    const notServarr = (why: string) =>
      new UnprocessableEntityException(
        `${baseUrl} answers, but not like Sonarr, Radarr or another Servarr (${why}): check the base URL and URL base`,
      );
    const versions = await this.getJson(baseUrl, '/api', apiKey);
    const info = versions.body as { current?: unknown; deprecated?: unknown } | undefined;
    if (versions.status !== 200 || typeof info?.current !== 'string' || !/^v\d{1,2}$/.test(info.current)) {
      throw notServarr(`/api answered ${versions.status} without a current API version`);
    }
    const deprecated = Array.isArray(info.deprecated)
      ? info.deprecated.filter((v): v is string => typeof v === 'string' && /^v\d{1,2}$/.test(v))
      : [];
    const status = await this.getJson(baseUrl, `/api/${info.current}/system/status`, apiKey);
    const system = status.body as { appName?: unknown; instanceName?: unknown; version?: unknown } | undefined;
    if (
      status.status !== 200 ||
      typeof system?.appName !== 'string' ||
      !/^[A-Za-z][A-Za-z0-9-]{0,31}$/.test(system.appName)
    ) {
      throw notServarr(`system/status answered ${status.status} without an appName`);
    }
    const name =
      typeof system.instanceName === 'string' && system.instanceName.trim()
        ? system.instanceName.trim()
        : system.appName;
    return {
      name: name.slice(0, 128),
      type: system.appName.toLowerCase(),
      apiVersions: [info.current, ...deprecated.filter((v) => v !== info.current)],
      upstreamVersion: typeof system.version === 'string' ? system.version.slice(0, 64) : 'unknown',
    };
  }
}
