import { createServer, type Server } from 'node:http';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { Metrics } from './metrics';

/**
 * `GET /metrics` on `METRICS_HOST:METRICS_PORT`, a port of its own: app slugs and service names stay
 * off the public port, and a scrape never goes through the admin API's guards. Anything else is 404.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server?: Server;

  constructor(
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metricsPort;
    if (port === undefined) return;
    const server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?', 1)[0];
      if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
        return;
      }
      this.metrics.text().then(
        (text) => response.writeHead(200, { 'Content-Type': this.metrics.contentType }).end(text),
        (error: unknown) => {
          this.logger.error(`Could not collect the metrics: ${(error as Error).message}`);
          response.writeHead(500, { 'Content-Type': 'text/plain' }).end('Could not collect the metrics\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.config.metricsHost, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(`Metrics at http://${this.config.metricsHost}:${this.port}/metrics`);
  }

  /** The port actually bound (METRICS_PORT; tests may need to know it). */
  get port(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
