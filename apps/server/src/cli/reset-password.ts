import { AdminUsersService, PasswordHasher } from '@arrbiter/server/auth';
import { AppConfig } from '@arrbiter/server/config';
import { openDataSource } from '@arrbiter/server/database';
import { ENTITIES } from '../app/entities';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * `main.js reset-password <username> [--password-stdin]`: sets a new password (read from standard
 * input, or generated and printed once) and signs the administrator out everywhere.
 */
export async function resetPassword(config: AppConfig, args: string[]): Promise<number> {
  const username = args.find((a) => !a.startsWith('--'));
  if (!username) {
    console.error('Usage: reset-password <username> [--password-stdin]');
    return 2;
  }
  const fromStdin = args.includes('--password-stdin');
  const password = fromStdin ? await readStdin() : undefined;
  if (password !== undefined && (password.length < 12 || password.length > 256)) {
    console.error('The new password must be 12 to 256 characters long.');
    return 2;
  }
  const dataSource = await openDataSource(config, { entities: ENTITIES, migrate: true });
  try {
    const users = AdminUsersService.over(dataSource, config, new PasswordHasher());
    const known = await users.usernames();
    if (!known.includes(username.toLowerCase())) {
      console.error(`No administrator named "${username}". Administrators: ${known.join(', ') || '(none)'}`);
      return 1;
    }
    const newPassword = await users.resetPassword(username, password);
    console.log(
      fromStdin
        ? `Password of "${username}" changed; its sessions are signed out.`
        : `New password of "${username}" (shown once): ${newPassword}\nIts sessions are signed out.`,
    );
    return 0;
  } finally {
    await dataSource.destroy();
  }
}
