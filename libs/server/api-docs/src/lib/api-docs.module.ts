import { Module } from '@nestjs/common';
import { ApiDescription } from './api-description';
import { ApiDocsController } from './api-docs.controller';

/** `/api/docs`: the admin API's OpenAPI description and its viewer (the root hands it the application). */
@Module({ controllers: [ApiDocsController], providers: [ApiDescription], exports: [ApiDescription] })
export class ApiDocsModule {}
