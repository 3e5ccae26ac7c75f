import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import type { AccessLogFields } from './proxy-context';

/**
 * One structured line per proxy request, written when the response ends: method, canonical path (never
 * the query, which may carry a key), status, duration and the gateway's decision (app, proxy, route,
 * outcome, upstream time). Written with one logger for all lines: no per-request child logger on the hot path.
 */
@Injectable()
export class AccessLog {
  private logger?: Logger;

  /**
   * The root logger without its redaction: the line is built from the fields above, which hold no
   * secret, and walking the redaction paths for every proxied call costs more than the rest of the line.
   */
  private get log(): Logger {
    return (this.logger ??= PinoLogger.root.child({}, { redact: { paths: [] } }));
  }

  /** Writes the line when the response closes, from `fields` as they are then. */
  track(request: IncomingMessage, response: ServerResponse, fields: AccessLogFields): void {
    const started = performance.now();
    response.once('close', () => {
      const logger = this.log;
      const status = response.statusCode;
      const line = {
        proxy: fields,
        status: response.writableFinished ? status : 'aborted',
        responseTime: Math.round((performance.now() - started) * 10) / 10,
        userAgent: request.headers['user-agent'],
        remoteAddress: request.socket.remoteAddress,
      };
      if (status >= 500 || !response.writableFinished) logger.warn(line, 'proxy request');
      else logger.info(line, 'proxy request');
    });
  }
}
