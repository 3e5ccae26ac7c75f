import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Header, Req, StreamableFile } from '@nestjs/common';
import { ApiExcludeController, type OpenAPIObject } from '@nestjs/swagger';
import { ReadAccess } from '@arrbiter/server/access';
import { ExternalUrls, type ExternalRequest } from '@arrbiter/server/config';
import { ApiDescription } from './api-description';
import { docsInit, docsPage } from './docs-page';

/** Swagger UI's files (the `swagger-ui-dist` package; its main module would load the bundle into the server). */
const SWAGGER_UI = (require('swagger-ui-dist/absolute-path.js') as () => string)();
/** Behind the session: kept by the browser only, for an hour. */
const CACHE = 'private, max-age=3600';

/**
 * The admin API's description and a viewer for it, behind the admin session like the API itself
 * (the global guards apply: 401 without one), open to every role. Under `/api`, so the dashboard's fallback never answers
 * for it; not itself part of the description.
 */
@ApiExcludeController()
@Controller('api/docs')
export class ApiDocsController {
  constructor(
    private readonly description: ApiDescription,
    private readonly urls: ExternalUrls,
  ) {}

  @ReadAccess()
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  page(@Req() request: ExternalRequest): string {
    return docsPage(this.urls.prefixOf(request));
  }

  @ReadAccess()
  @Get('openapi.json')
  @Header('Cache-Control', 'no-cache')
  openapi(@Req() request: ExternalRequest): OpenAPIObject {
    // "Try it out" calls the paths under the sub-path the page was opened at.
    const prefix = this.urls.prefixOf(request);
    const document = this.description.document();
    return prefix === '' ? document : { ...document, servers: [{ url: prefix }] };
  }

  @ReadAccess()
  @Get('init.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', CACHE)
  init(@Req() request: ExternalRequest): string {
    return docsInit(this.urls.prefixOf(request));
  }

  @ReadAccess()
  @Get('swagger-ui-bundle.js')
  @Header('Cache-Control', CACHE)
  bundle(): StreamableFile {
    return asset('swagger-ui-bundle.js', 'text/javascript; charset=utf-8');
  }

  @ReadAccess()
  @Get('swagger-ui.css')
  @Header('Cache-Control', CACHE)
  styles(): StreamableFile {
    return asset('swagger-ui.css', 'text/css; charset=utf-8');
  }
}

function asset(name: string, type: string): StreamableFile {
  return new StreamableFile(createReadStream(join(SWAGGER_UI, name)), { type });
}
