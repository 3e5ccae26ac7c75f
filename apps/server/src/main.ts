import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppConfig, ConfigError, loadConfig } from '@arrbiter/server/config';
import { SecretKeyMismatchError } from '@arrbiter/server/crypto';
import { EmbeddedDatabaseLockedError } from '@arrbiter/server/database';
import { ConfigFileError } from '@arrbiter/server/declarative-config';
import { flushLogs } from '@arrbiter/server/http';
import { createApp } from './app/create-app';
import { exportCommand, importCommand } from './cli/config-commands';
import { migrate } from './cli/migrate';
import { quietLogs } from './cli/quiet-logs';
import { resetPassword } from './cli/reset-password';

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 20_000;

/**
 * Serves until SIGTERM/SIGINT, then shuts down gracefully: stop accepting connections, let in-flight
 * requests finish, run the modules' shutdown hooks, close the database, exit 0.
 */
async function serve(config: AppConfig): Promise<void> {
  const app = await createApp(config);
  try {
    await app.listen(config.port, config.host);
  } catch (error) {
    // A start-up hook failed (CONFIG_FILE, say): close what opened (the embedded database) before exiting.
    await app.close().catch(() => undefined);
    throw error;
  }
  // Log lines are written in batches: what start-up logged is out before the first request is served.
  flushLogs();
  const logger = new Logger('Shutdown');
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight requests`);
    setTimeout(() => {
      logger.error(`Shutdown took longer than ${SHUTDOWN_DEADLINE_MS} ms: exiting anyway`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    // Keep-alive connections that finish their last response while closing are closed then, not at their time-out.
    const server = app.getHttpServer() as import('node:http').Server;
    const reaper = setInterval(() => server.closeIdleConnections(), 100);
    reaper.unref();
    app.close().then(
      () => {
        logger.log('Shut down cleanly');
        process.exitCode = 0;
      },
      (error: unknown) => {
        logger.error(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

async function main(argv: string[]): Promise<number | undefined> {
  const [command = 'serve', ...args] = argv;
  let config: AppConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  if (command !== 'serve') quietLogs(config);
  switch (command) {
    case 'serve':
      await serve(config);
      return undefined;
    case 'migrate':
      await migrate(config);
      return 0;
    case 'reset-password':
      return resetPassword(config, args);
    case 'export':
      return exportCommand(config, args);
    case 'import':
      return importCommand(config, args, process.env);
    default:
      console.error(
        `Unknown command "${command}". Commands: serve (default), migrate, reset-password <username>, export [--secrets] [--yaml], import <file> [--dry-run]`,
      );
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    // A second process on the same DATA_DIR: one clear line, no stack.
    // A CONFIG_FILE that cannot be applied: its problems, no stack (and never a secret's value).
    // A SECRET_KEY that does not decrypt the stored secrets: what to do, not GCM's words.
    if (
      error instanceof EmbeddedDatabaseLockedError ||
      error instanceof ConfigFileError ||
      error instanceof SecretKeyMismatchError
    )
      console.error(error.message);
    else console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
