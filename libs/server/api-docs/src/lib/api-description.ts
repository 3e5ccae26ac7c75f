import { Injectable, type INestApplication, ServiceUnavailableException } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { describeAdminApi } from './admin-api-document';

/**
 * The admin API's description, made on its first request (scanning the routes takes a moment that
 * start-up need not pay) and kept: the routes do not change while the server runs. The composition
 * root hands it the application (`attach`), which `@nestjs/swagger` scans.
 */
@Injectable()
export class ApiDescription {
  private application?: { app: INestApplication; version: string };
  private described?: OpenAPIObject;

  attach(app: INestApplication, version: string): void {
    this.application = { app, version };
    this.described = undefined;
  }

  document(): OpenAPIObject {
    if (!this.application) throw new ServiceUnavailableException('The API description is not available yet');
    this.described ??= describeAdminApi(this.application.app, this.application.version);
    return this.described;
  }
}
