import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ExternalUrls } from '@arrbiter/server/config';
import express, { NextFunction, Request, Response } from 'express';

/** Paths that belong to the server, never to the single-page app (in any case, as Express routes them). */
const SERVER_PATHS = /^\/(api|proxy|health)(\/|$)/i;

const BASE_HREF = /<base href="[^"]*"\s*\/?>/;

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;');
}

/**
 * Serves the dashboard's production build at `/`, with the single-page-app fallback to
 * `index.html` for every other GET outside `/api`, `/proxy` and `/health`. `index.html` gets the
 * `<base href>` of where the server lives for that request (`/`, `PUBLIC_URL`'s path, or a trusted
 * `X-Forwarded-Prefix`): the dashboard's routes, assets and API calls are all relative to it.
 */
export function serveDashboard(app: NestExpressApplication, directory: string, urls: ExternalUrls): void {
  const index = join(directory, 'index.html');
  if (!existsSync(index)) {
    new Logger('Dashboard').warn(`No dashboard build at ${directory}: run \`npx nx build dashboard\``);
    return;
  }
  const page = readFileSync(index, 'utf8');
  // One page per prefix (a handful at most: PUBLIC_URL's, or what trusted proxies forward).
  const pages = new Map<string, string>();
  const pageFor = (prefix: string): string => {
    let html = pages.get(prefix);
    if (html === undefined) {
      html = page.replace(BASE_HREF, `<base href="${escapeAttribute(prefix)}/" />`);
      if (pages.size >= 16) pages.clear();
      pages.set(prefix, html);
    }
    return html;
  };
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
    res.type('html').send(pageFor(urls.prefixOf(req)));
  });
}
