import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { Metrics } from './metrics';
import { MetricsServer } from './metrics-server';

/** The version in the nearest `package.json` at or above `directory` (the build's own in production). */
export function packageVersion(directory: string): string {
  for (let dir = directory; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const version = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
      if (typeof version === 'string') return version;
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

/**
 * Prometheus metrics when `METRICS_PORT` is set: `Metrics` (global) and its HTTP server. With metrics
 * off the module provides nothing at all: every user injects `Metrics` with `@Optional()`, and the
 * proxy route pays one null check.
 */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(config: AppConfig, version: string): DynamicModule {
    if (config.metricsPort === undefined) return { module: MetricsModule };
    return {
      module: MetricsModule,
      providers: [{ provide: Metrics, useValue: new Metrics(version) }, MetricsServer],
      exports: [Metrics, MetricsServer],
    };
  }
}
