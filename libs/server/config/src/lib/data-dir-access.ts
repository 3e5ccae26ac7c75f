import { statSync } from 'node:fs';
import { dirname } from 'node:path';

/** A numeric user and group, as `chown` and `--user` take them. */
export interface Identity {
  uid: number;
  gid: number;
}

/** The user this process runs as (undefined where there are no POSIX ids). */
export function currentIdentity(): Identity | undefined {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  return uid === undefined || gid === undefined ? undefined : { uid, gid };
}

/** The owner of `path`, or of its nearest existing parent (what must be writable to create it). */
export function nearestOwner(path: string): { path: string; owner: Identity } | undefined {
  let current = path;
  for (;;) {
    try {
      const { uid, gid } = statSync(current);
      return { path: current, owner: { uid, gid } };
    } catch {
      const parent = dirname(current);
      if (parent === current) return undefined;
      current = parent;
    }
  }
}

/**
 * The start-up line for a DATA_DIR this process cannot write: what failed, and for a permission error
 * which user needs to own it and the two ways to get there (give it to that user, or run as its
 * owner: PUID/PGID with the image, or `--user`).
 */
export function dataDirNotWritable(
  code: string,
  what: string,
  dataDir: string,
  runningAs: Identity | undefined = currentIdentity(),
  found: { path: string; owner: Identity } | undefined = nearestOwner(dataDir),
): string {
  const line = `DATA_DIR is not writable (${code}): ${what}`;
  if ((code !== 'EACCES' && code !== 'EPERM') || runningAs === undefined) return line;
  const me = `${runningAs.uid}:${runningAs.gid}`;
  const where = found
    ? `${found.path} belongs to ${found.owner.uid}:${found.owner.gid}`
    : `${dataDir} cannot be reached`;
  const owner = found && found.owner.uid !== 0 ? `${found.owner.uid}:${found.owner.gid}` : '<uid>:<gid>';
  return (
    `${line}. Arrbiter runs as uid:gid ${me} and ${where}. Fix it one of two ways: give the directory to ` +
    `${me} (\`chown -R ${me} <the directory or volume on the host>\`), or run Arrbiter as a user that may ` +
    `write it: with the image, start it without --user and set PUID/PGID (it then gives ${dataDir} to that ` +
    `user), or pass --user ${owner} (Kubernetes: the pod's securityContext runAsUser/fsGroup).`
  );
}
