import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiDescription } from '@arrbiter/server/api-docs';
import { AppConfig, ExternalUrls, publicPrefixOf, TrustedProxies } from '@arrbiter/server/config';
import { ProxyGateway } from '@arrbiter/server/gateway';
import { packageVersion } from '@arrbiter/server/metrics';
import express from 'express';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { AppModule, AppModuleOptions } from './app.module';
import { serveDashboard } from './dashboard';
import { createHttpServer, DispatchingExpressAdapter } from './http-server';

export interface CreateAppOptions extends AppModuleOptions {
  /** The dashboard's production build (default: `../dashboard/browser` beside the server bundle). */
  dashboardDir?: string;
}

function noStore(_request: express.Request, response: express.Response, next: express.NextFunction): void {
  response.setHeader('Cache-Control', 'no-store');
  next();
}

/** Builds the whole server, as production runs it, without listening. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestExpressApplication> {
  const expressApp = express();
  // The proxy route's entry, known once Nest has built the application (until then: 503).
  const proxyRoute: { gateway?: ProxyGateway; urls?: ExternalUrls } = {};
  // With PUBLIC_URL unset, a TRUST_PROXY peer may name the sub-path with X-Forwarded-Prefix.
  const forwardedPrefix =
    config.publicUrl === undefined && config.trustProxy !== false
      ? (req: IncomingMessage) => proxyRoute.urls?.prefixOf(req) ?? ''
      : undefined;
  const server = createHttpServer(expressApp, () => proxyRoute.gateway, publicPrefixOf(config), forwardedPrefix);
  const adapter = new DispatchingExpressAdapter(expressApp, server);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options), adapter, {
    bufferLogs: true,
    abortOnError: false,
    // No body is read before the Origin and session checks: JsonBodyGuard reads admin API bodies once
    // the caller is let in (app.module). The proxy route streams them untouched.
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('trust proxy', app.get(TrustedProxies).trusts);

  const securityHeaders = (secure: boolean) =>
    helmet({
      // Over plain http (a home LAN), upgrading requests or pinning https would break the dashboard.
      contentSecurityPolicy: { directives: { upgradeInsecureRequests: secure ? [] : null } },
      strictTransportSecurity: secure,
    });
  // The proxy route (/proxy/...) never reaches Express (see createHttpServer): none of this applies to it.
  const urls = app.get(ExternalUrls);
  proxyRoute.urls = urls;
  if (urls.configured) {
    app.use(securityHeaders(config.secureCookies));
  } else {
    // PUBLIC_URL unset: the scheme the request came with decides, as it does for cookies' Secure.
    const overHttps = securityHeaders(true);
    const overHttp = securityHeaders(false);
    app.use((req: express.Request, res: express.Response, next: express.NextFunction) =>
      (urls.secure(req) ? overHttps : overHttp)(req, res, next),
    );
  }
  // No answer of the admin and auth API is kept by a browser or a shared cache: many carry a proxy key,
  // a token, a session or an exported secret, all are per-user and change with every write, and one
  // header here cannot be forgotten on a new route (a route's own `@Header('Cache-Control')` still wins).
  app.use('/api', noStore);
  app.use('/api', cookieParser());
  serveDashboard(app, options.dashboardDir ?? join(__dirname, '..', 'dashboard', 'browser'), urls);
  proxyRoute.gateway = app.get(ProxyGateway);
  // /api/docs describes the routes of this application (scanned on the first request for it).
  app.get(ApiDescription).attach(app, packageVersion(__dirname));
  return app;
}
