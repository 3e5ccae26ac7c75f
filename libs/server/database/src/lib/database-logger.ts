import { Logger as NestLogger } from '@nestjs/common';
import { Logger as TypeOrmLogger } from 'typeorm';

/**
 * TypeORM's logger: counts every query (tests use the count to prove that a path makes no query)
 * and reports failed and slow queries. Never logs parameters, which may hold secrets.
 */
export class DatabaseLogger implements TypeOrmLogger {
  private readonly logger = new NestLogger('Database');
  private queries = 0;

  /** Queries sent since the process started. */
  get queryCount(): number {
    return this.queries;
  }

  logQuery(): void {
    this.queries += 1;
  }

  /** Not counted again: TypeORM called `logQuery` before it sent the query. */
  logQueryError(error: string | Error, query: string): void {
    this.logger.warn(
      { query: query.slice(0, 500), error: error instanceof Error ? error.message : error },
      'query failed',
    );
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn({ query: query.slice(0, 500), durationMs: time }, 'slow query');
  }

  logSchemaBuild(): void {
    // Schema building is not used (synchronize is off).
  }

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}
