import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ConfigImportReport } from '@arrbiter/contracts';
import { CatalogModule } from '@arrbiter/server/catalog';
import { AppConfig, ConfigModule, readDocumentFile } from '@arrbiter/server/config';
import { CryptoModule } from '@arrbiter/server/crypto';
import { DatabaseModule } from '@arrbiter/server/database';
import {
  DeclarativeConfigModule,
  DeclarativeConfigService,
  describe,
  importProblems,
  serialiseDocument,
} from '@arrbiter/server/declarative-config';
import { HistoryModule } from '@arrbiter/server/history';
import { buildLoggerOptions } from '@arrbiter/server/http';
import { NotificationsModule } from '@arrbiter/server/notifications';
import { Logger, LoggerModule } from 'nestjs-pino';
import { ENTITIES } from '../app/entities';

/** The modules the commands need: the domains and the database, no HTTP server, no admin bootstrap. */
@Module({})
class ConfigCommandsModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigCommandsModule,
      imports: [
        ConfigModule.forRoot(config),
        // Standard output carries the document: log lines (warnings and worse) go to standard error.
        LoggerModule.forRoot(
          buildLoggerOptions({
            level: config.logLevel === 'silent' ? 'silent' : 'warn',
            destination: { write: (line: string) => process.stderr.write(line) },
          }),
        ),
        DatabaseModule.forRoot({ entities: ENTITIES }),
        CryptoModule,
        HistoryModule,
        // The domains raise events through its Notifier, and the settings hold its webhooks.
        NotificationsModule,
        CatalogModule,
        DeclarativeConfigModule,
      ],
    };
  }
}

async function withContext<T>(config: AppConfig, run: (config: DeclarativeConfigService) => Promise<T>): Promise<T> {
  const context: INestApplicationContext = await NestFactory.createApplicationContext(
    ConfigCommandsModule.forRoot(config),
    { bufferLogs: true, abortOnError: false },
  );
  context.useLogger(context.get(Logger));
  try {
    return await run(context.get(DeclarativeConfigService));
  } finally {
    await context.close();
  }
}

/** `main.js export [--secrets] [--yaml]`: the declarative document on standard output. */
export async function exportCommand(config: AppConfig, args: string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--secrets' && a !== '--yaml');
  if (unknown.length > 0) {
    console.error(`Unknown option ${unknown[0]}. Usage: export [--secrets] [--yaml]`);
    return 2;
  }
  const document = await withContext(config, (declarative) => declarative.export(args.includes('--secrets')));
  process.stdout.write(serialiseDocument(document, args.includes('--yaml') ? 'yaml' : 'json'));
  return 0;
}

/** One line per change of the report (what `import` prints). */
export function reportLines(report: ConfigImportReport): string[] {
  const lines = [`${report.dryRun ? 'Would change' : 'Changed'}: ${describe(report)}`];
  for (const collection of ['settings', 'services', 'templates', 'apps', 'proxies'] as const) {
    for (const change of report[collection]) {
      const details = change.changes.length > 0 ? ` (${change.changes.join(', ')})` : '';
      lines.push(`  ${change.kind} ${collection.replace(/s$/, '')} ${change.name}${details}`);
    }
  }
  return lines;
}

/**
 * `main.js import <file> [--dry-run]`: applies a document (JSON when named `.json`, else YAML) in one
 * transaction, its `${ENV}` / `${file:…}` references resolved; `--dry-run` only reports.
 */
export async function importCommand(
  config: AppConfig,
  args: string[],
  environment: NodeJS.ProcessEnv,
): Promise<number> {
  const files = args.filter((a) => !a.startsWith('--'));
  const unknown = args.filter((a) => a.startsWith('--') && a !== '--dry-run');
  if (files.length !== 1 || unknown.length > 0) {
    console.error('Usage: import <file> [--dry-run]');
    return 2;
  }
  let file;
  try {
    file = readDocumentFile(files[0], environment);
  } catch (error) {
    console.error(`${files[0]} ${(error as Error).message}`);
    return 1;
  }
  const dryRun = args.includes('--dry-run');
  try {
    const report = await withContext(config, (declarative) =>
      declarative.importFile(file, { dryRun, source: `the command line (${file.path})` }),
    );
    console.log(reportLines(report).join('\n'));
    return 0;
  } catch (error) {
    const problems = importProblems(error);
    if (!problems) throw error;
    console.error(
      `${file.path} was not imported (nothing was changed):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    return 1;
  }
}
