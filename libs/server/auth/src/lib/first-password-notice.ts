import { isAbsolute, relative } from 'node:path';

/**
 * How this server is started from its working directory (`node dist/apps/server/main.js` in the
 * image and in a checkout), for the commands that start-up lines name.
 */
export function serverCommand(script = process.argv[1], cwd = process.cwd()): string {
  if (!script || !/main\.js$/.test(script)) return 'node dist/apps/server/main.js';
  const path = relative(cwd, script);
  return `node ${path.startsWith('..') || isAbsolute(path) ? script : path}`;
}

export interface FirstPasswordNotice {
  /** The log line (at warn): who was created and how to set a new password; never the password. */
  line: string;
  /** The block for standard error: the password, once, and the same instructions. */
  block: string;
}

/**
 * What start-up says when it creates the first administrator with a generated password. The
 * reset-password command cannot run beside a server on the embedded database (its directory is
 * locked while the server runs): then it says to stop the server first and, with the image, to run
 * the command in a one-off container on the same volume.
 */
export function firstPasswordNotice(
  username: string,
  password: string,
  options: { embedded: boolean; dataDir: string; command?: string },
): FirstPasswordNotice {
  const command = `${options.command ?? serverCommand()} reset-password ${username}`;
  const steps = options.embedded
    ? [
        'To set a new one later: stop Arrbiter (its embedded database is locked while it runs), then run',
        `  ${command}`,
        'With the container image: stop the container, then run the command in a one-off container on',
        'the same volume (and with the same PUID/PGID and SECRET_KEY, if you set them):',
        `  docker run --rm -v <your volume>:${options.dataDir} <image> ${command}`,
      ]
    : [
        'To set a new one later, run (beside the running server):',
        `  ${command}`,
        `With the container image: docker exec <container> ${command}`,
      ];
  const line =
    `Created the first administrator "${username}" (owner) with a generated password, shown once on standard ` +
    `error (the block with "generated password"). ${steps.join(' ').replace(/\s+/g, ' ')}`;
  const rule = '='.repeat(78);
  const block = [
    '',
    rule,
    '  Arrbiter created the first administrator.',
    `    username:           ${username}`,
    `    generated password: ${password}`,
    '  Shown once: sign in and change it under "Your account", or keep it somewhere safe.',
    ...steps.map((s) => `  ${s}`),
    rule,
    '',
    '',
  ].join('\n');
  return { line, block };
}
