import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually';

/** A request the receiver got: method, path (with query), headers and the body as text. */
export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * A webhook receiver on loopback (a plain node http server) for tests: it keeps every request and
 * answers 200, or the statuses queued for a path (`answer('/flaky', 500)` makes the next call to
 * `/flaky` get 500, the following one 200 again).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly queued = new Map<string, number[]>();

  private constructor(private readonly server: Server) {}

  static async start(port = 0): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const path = req.url ?? '/';
        receiver.received.push({ method: req.method ?? '', path, headers: req.headers, body, json });
        const status = receiver.queued.get(path.split('?')[0])?.shift() ?? 200;
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(status < 300 ? '{"ok":true}' : '{"error":"try later"}');
      });
    });
    await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next calls to `path` get these statuses, one each, before 200 again. */
  answer(path: string, ...statuses: number[]): void {
    this.queued.set(path, [...(this.queued.get(path) ?? []), ...statuses]);
  }

  /** What arrived at this path (query ignored). */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path.split('?')[0] === path);
  }

  /** Polls (`eventually`) until `check` holds for what arrived, and answers what it found; a failure lists what came. */
  async waitFor<T>(what: string, check: (received: ReceivedWebhook[]) => T | undefined | false): Promise<T> {
    let found: T | undefined | false;
    try {
      await eventually(`webhook receiver: ${what}`, () => {
        found = check(this.received);
        return found !== undefined && found !== false;
      });
    } catch (error) {
      const got = this.received.map((r) => `${r.method} ${r.path} ${r.body.slice(0, 200)}`).join('\n');
      throw new Error(`${(error as Error).message}; got:\n${got}`);
    }
    return found as T;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}
