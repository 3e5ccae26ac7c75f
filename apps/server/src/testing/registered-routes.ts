import type { INestApplication } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { AdminRole } from '@arrbiter/contracts';
import { IS_PUBLIC, MIN_ROLE, SESSION_ONLY } from '@arrbiter/server/access';

export interface Route {
  /** `GET`, `POST`, … */
  method: string;
  /** As Nest registers it: `/api/admin/v1/proxies/:id`. */
  path: string;
  /** The least role its handler names (`@MinRole`); undefined when it names none. */
  minRole: AdminRole | undefined;
  /** `@Public()` on the handler or its controller. */
  isPublic: boolean;
  /** `@SessionOnly()`: API tokens refused. */
  sessionOnly: boolean;
}

function join(...parts: string[]): string {
  return `/${parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/')}`;
}

/**
 * Every route of every controller of the running application, found through Nest's discovery (not a
 * list kept by hand), with the access its handler declares: a route added later is found too.
 */
export function registeredRoutes(app: INestApplication): Route[] {
  const routes: Route[] = [];
  // Made here rather than taken from the application, which need not import DiscoveryModule.
  const scanner = new MetadataScanner();
  for (const wrapper of new DiscoveryService(app.get(ModulesContainer)).getControllers()) {
    const type = wrapper.metatype as (new () => object) | null;
    if (!type) continue;
    const prefixes = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, type) ?? '/');
    const classPublic = Reflect.getMetadata(IS_PUBLIC, type) === true;
    for (const name of scanner.getAllMethodNames(type.prototype)) {
      const handler = (type.prototype as Record<string, unknown>)[name] as object;
      const paths: string[] | string | undefined = Reflect.getMetadata(PATH_METADATA, handler);
      if (paths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const access = {
        minRole: Reflect.getMetadata(MIN_ROLE, handler) as AdminRole | undefined,
        isPublic: classPublic || Reflect.getMetadata(IS_PUBLIC, handler) === true,
        sessionOnly: Reflect.getMetadata(SESSION_ONLY, handler) === true,
      };
      for (const prefix of prefixes) {
        for (const path of ([] as string[]).concat(paths)) routes.push({ method, path: join(prefix, path), ...access });
      }
    }
  }
  return routes;
}
