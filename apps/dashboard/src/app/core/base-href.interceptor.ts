import { HttpInterceptorFn } from '@angular/common/http';
import { PlatformLocation } from '@angular/common';
import { inject } from '@angular/core';

/**
 * Puts the server's API calls under the page's `<base href>`: the server serves the dashboard at `/`,
 * or under `PUBLIC_URL`'s path (`/arrbiter/`), and writes that base into `index.html`. Services keep
 * naming `/api/…`; this makes it `/arrbiter/api/…` there.
 */
export const baseHrefInterceptor: HttpInterceptorFn = (request, next) => {
  if (!request.url.startsWith('/api/')) return next(request);
  const base = (inject(PlatformLocation).getBaseHrefFromDOM() ?? '/').replace(/\/+$/, '');
  return next(base === '' ? request : request.clone({ url: `${base}${request.url}` }));
};
