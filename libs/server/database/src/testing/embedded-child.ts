// A process that starts the embedded PostgreSQL of DATA_DIR (argv[2]) the way the server does, prints
// `ready <postgres pid> <port>`, then: `wait` (until killed), `throw` (an uncaught exception), or
// `query` (one query, stop, exit 0). Run by the database specs through ts-node.
import { Client } from 'pg';
import { startEmbeddedDatabase } from '../lib/embedded-database';

const [dataDir, mode] = process.argv.slice(2);

async function main(): Promise<void> {
  const server = await startEmbeddedDatabase(dataDir);
  console.log(`ready ${server.pid} ${server.connection.port}`);
  if (mode === 'throw') {
    setTimeout(() => {
      throw new Error('an uncaught exception');
    }, 10);
  } else if (mode === 'query') {
    const client = new Client({ ...server.connection, user: server.connection.username });
    await client.connect();
    const { rows } = await client.query<{ user: string }>('SELECT current_user AS user');
    await client.end();
    console.log(`user ${rows[0].user}`);
    await server.stop();
  } else {
    setInterval(() => undefined, 60_000);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
