import { hostname } from 'node:os';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { DestinationStream, pino } from 'pino';

/**
 * Where the server's log lines go and from which level on: pino's destination and level, shared with
 * the writers that put lines there themselves in pino's format (the proxy route's access line). One per
 * process, made by the composition root and handed to `buildLoggerOptions` and to `LogOutputModule`.
 */
export class LogOutput {
  /** pino's number for the level: `info` 30, `warn` 40; `silent` writes nothing. */
  readonly levelValue: number;
  /** pino's base bindings, on every line after `level` and `time`. */
  readonly pid = process.pid;
  readonly hostname = hostname();

  constructor(
    readonly level: string,
    readonly destination: DestinationStream,
  ) {
    this.levelValue = pino.levels.values[level] ?? Number.POSITIVE_INFINITY;
  }

  /** Whether a line of this level (pino's number) is written. */
  enabled(levelValue: number): boolean {
    return levelValue >= this.levelValue;
  }

  /**
   * Writes one line made by `JSON.stringify` of an object shaped as pino shapes its lines
   * (`{level, time, pid, hostname, …fields, msg}`). Nothing is redacted: it must hold no secret.
   */
  writeLine(json: string): void {
    this.destination.write(`${json}\n`);
  }
}

/** Provides the process's `LogOutput` to every module. */
@Global()
@Module({})
export class LogOutputModule {
  static forRoot(output: LogOutput): DynamicModule {
    return { module: LogOutputModule, providers: [{ provide: LogOutput, useValue: output }], exports: [LogOutput] };
  }
}
