import { CanActivate, ExecutionContext, HttpException, HttpStatus, PayloadTooLargeException } from '@nestjs/common';
import express from 'express';
import type { Request, RequestHandler, Response } from 'express';
import { jsonShapeProblem } from './json-shape';

/** How many bytes of JSON a request may send, as a `bytes` string (`'100kb'`, `'10mb'`). */
export type JsonBodyLimit = (request: Request) => string;

function bodyException(error: unknown, limit: string): HttpException {
  const status = (error as { status?: unknown }).status;
  if (status === HttpStatus.PAYLOAD_TOO_LARGE) return new PayloadTooLargeException(`The body is larger than ${limit}`);
  if (status === HttpStatus.UNSUPPORTED_MEDIA_TYPE) {
    return new HttpException(
      'The body’s character set or encoding is not supported',
      HttpStatus.UNSUPPORTED_MEDIA_TYPE,
    );
  }
  return new HttpException('The body is not valid JSON', HttpStatus.BAD_REQUEST);
}

/**
 * Reads a request's JSON body (`application/json`; other bodies are left unread). Registered as the
 * global guard after those that authenticate: a request they refuse is answered before a byte of its
 * body is read, and `limitFor` can see what they found (who is asking). Malformed JSON answers 400, and so
 * does JSON nested deeper than `MAX_JSON_DEPTH` or with a key of `RESERVED_KEYS` (before validation
 * walks it, which overflowed its stack or threw: 500s); a body over the limit 413; all through the
 * exception filter like every other error.
 */
export class JsonBodyGuard implements CanActivate {
  private readonly parsers = new Map<string, RequestHandler>();

  constructor(private readonly limitFor: JsonBodyLimit) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const limit = this.limitFor(request);
    const parse = this.parserFor(limit);
    return new Promise<boolean>((resolve, reject) => {
      void parse(request, response, (error?: unknown) => {
        if (error !== undefined && error !== null) return reject(bodyException(error, limit));
        const problem = jsonShapeProblem(request.body);
        if (problem === undefined) resolve(true);
        else reject(new HttpException(`The body ${problem}`, HttpStatus.BAD_REQUEST));
      });
    });
  }

  private parserFor(limit: string): RequestHandler {
    let parse = this.parsers.get(limit);
    if (!parse) {
      parse = express.json({ limit });
      this.parsers.set(limit, parse);
    }
    return parse;
  }
}
