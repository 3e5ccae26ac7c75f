import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ApiError } from '@arrbiter/contracts';
import { AppConfig } from '@arrbiter/server/config';
import cookieParser from 'cookie-parser';
import express, { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { AppModule, AppModuleOptions } from './app.module';
import { serveDashboard } from './dashboard';

export interface CreateAppOptions extends AppModuleOptions {
  /** The dashboard's production build (default: `../dashboard/browser` beside the server bundle). */
  dashboardDir?: string;
}

/** Admin API bodies are small JSON documents. */
const ADMIN_BODY_LIMIT = '1mb';
/** OpenAPI descriptions uploaded by admins are larger. */
const UPLOAD_BODY_LIMIT = '10mb';

/** JSON body parsing whose errors (malformed JSON, too large) answer in the admin API's error shape. */
function jsonBody(limit: string) {
  const parse = express.json({ limit });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (error?: unknown) => {
      if (error === undefined || error === null) return next();
      const status = (error as { status?: number }).status ?? 400;
      const message = status === 413 ? `The body is larger than ${limit}` : 'The body is not valid JSON';
      const body: ApiError = { statusCode: status, error: STATUS_CODES[status] ?? 'Bad Request', message };
      res.status(status).json(body);
    });
}

/** Builds the whole server, as production runs it, without listening. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, options), {
    bufferLogs: true,
    abortOnError: false,
    // Bodies are parsed on the admin API only: the proxy route streams them untouched.
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);

  const securityHeaders = helmet({
    // Over plain http (a home LAN), upgrading requests or pinning https would break the dashboard.
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: config.secureCookies ? [] : null } },
    strictTransportSecurity: config.secureCookies,
  });
  // The proxy route (/proxy/...) is served in front of Express (gateway's ProxyGateway): none of this applies to it.
  app.use(securityHeaders);
  app.use('/api/admin/v1/openapi', jsonBody(UPLOAD_BODY_LIMIT));
  app.use('/api', jsonBody(ADMIN_BODY_LIMIT), cookieParser());
  serveDashboard(app, options.dashboardDir ?? join(__dirname, '..', 'dashboard', 'browser'));
  return app;
}
