import { HttpException, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { describe } from './config-import.service';
import { DeclarativeConfigService } from './declarative-config.service';
import { DocumentProblems } from './document/config-document';

/** `CONFIG_FILE` could not be applied: the server does not start. The message names the problems, never a secret. */
export class ConfigFileError extends Error {
  constructor(path: string, problems: readonly string[]) {
    super(`CONFIG_FILE ${path} was not applied (nothing was changed):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigFileError';
  }
}

/** The problems of a failed import as lines: a document's, or what the admin API would have answered. */
export function importProblems(error: unknown): string[] | undefined {
  if (error instanceof DocumentProblems) return [...error.problems];
  if (error instanceof HttpException) {
    const body = error.getResponse();
    const message = typeof body === 'string' ? body : (body as { message?: string | string[] }).message;
    return ([] as string[]).concat(message ?? error.message);
  }
  return undefined;
}

/**
 * Applies `CONFIG_FILE` once the modules are up, before the server listens. Idempotent: a document
 * that matches the instance writes nothing (no revision, no recent change). Replicas starting together
 * apply it one at a time (the import's advisory lock); the later ones find nothing to do.
 */
@Injectable()
export class ConfigFileLoader implements OnApplicationBootstrap {
  private readonly logger = new Logger('ConfigFile');

  constructor(
    private readonly config: AppConfig,
    private readonly declarative: DeclarativeConfigService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const file = this.config.configFile;
    if (!file) return;
    try {
      const report = await this.declarative.importFile(file, { dryRun: false, source: `CONFIG_FILE ${file.path}` });
      this.logger.log(`CONFIG_FILE ${file.path} applied: ${describe(report)}`);
    } catch (error) {
      const problems = importProblems(error);
      if (problems) throw new ConfigFileError(file.path, problems);
      throw error;
    }
  }
}
