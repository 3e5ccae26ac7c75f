import { Logger, LogLevel } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';

/**
 * The commands (`migrate`, `reset-password`, `export`, `import`) print their own result: the logs of
 * what they start (the embedded PostgreSQL's lines, its initialisation) are left out unless they warn,
 * or LOG_LEVEL asks for debug or trace.
 */
export function quietLogs(config: AppConfig): void {
  const levels: LogLevel[] =
    config.logLevel === 'silent'
      ? []
      : config.logLevel === 'debug' || config.logLevel === 'trace'
        ? ['fatal', 'error', 'warn', 'log', 'debug', 'verbose']
        : ['fatal', 'error', 'warn'];
  Logger.overrideLogger(levels);
}
