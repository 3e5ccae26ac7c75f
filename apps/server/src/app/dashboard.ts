import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { NextFunction, Request, Response } from 'express';

/** Paths that belong to the server, never to the single-page app (in any case, as Express routes them). */
const SERVER_PATHS = /^\/(api|proxy|health)(\/|$)/i;

/**
 * Serves the dashboard's production build at `/`, with the single-page-app fallback to
 * `index.html` for every other GET outside `/api`, `/proxy` and `/health`.
 */
export function serveDashboard(app: NestExpressApplication, directory: string): void {
  const index = join(directory, 'index.html');
  if (!existsSync(index)) {
    new Logger('Dashboard').warn(`No dashboard build at ${directory}: run \`npx nx build dashboard\``);
    return;
  }
  const assets = express.static(directory, { index: false, maxAge: '1y', immutable: true });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (SERVER_PATHS.test(req.path)) return next();
    // Hashed bundles are immutable; index.html must never be cached.
    if (req.path !== '/' && req.path !== '/index.html') return assets(req, res, next);
    return next();
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || SERVER_PATHS.test(req.path)) return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
}
