import { request as httpRequest, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json<T = unknown>(): T;
}

/**
 * An HTTP request whose path is sent exactly as given (no URL normalisation of `..`, `%2e` or `//`),
 * which fetch and supertest would otherwise do for us.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: OutgoingHttpHeaders = {},
  body?: Buffer | string,
  /** `localAddress`: the client's own address (e.g. `127.0.0.2`: another loopback peer). */
  options: { localAddress?: string } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers,
        agent: false,
        insecureHTTPParser: false,
        localAddress: options.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
