import {
  BadRequestException,
  CallHandler,
  ExecutionContext,
  HttpException,
  HttpStatus,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import { MAX_DOCUMENT_BYTES } from '@arrbiter/server/config';
import { BodyTooLargeError, readLimitedText } from '@arrbiter/server/http';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { DocumentProblems, parseDocumentText } from './document/config-document';

/** The media types a YAML document is sent as. */
export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** Whether an `Accept` header asks for YAML. */
export function acceptsYaml(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => YAML_TYPES.includes(mediaType(part)));
}

/**
 * A configuration document's body: JSON was parsed by the global body guard (up to the same limit,
 * see the root module); YAML is read here, after the Origin and session checks, up to
 * `MAX_DOCUMENT_BYTES`, and parsed into `request.body`. Anything else answers 415.
 */
@Injectable()
export class DocumentBodyInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<Request>();
    const type = mediaType(request.headers['content-type']);
    if (YAML_TYPES.includes(type)) {
      let text: string;
      try {
        text = await readLimitedText(request, MAX_DOCUMENT_BYTES);
      } catch (error) {
        if (error instanceof BodyTooLargeError)
          throw new PayloadTooLargeException(`The document is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB`);
        throw error;
      }
      try {
        request.body = parseDocumentText(text, 'yaml');
      } catch (error) {
        if (error instanceof DocumentProblems) throw new BadRequestException([...error.problems]);
        throw error;
      }
    } else if (type !== 'application/json') {
      throw new HttpException(
        'Send the configuration document as application/json or application/yaml',
        HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      );
    }
    return next.handle();
  }
}
