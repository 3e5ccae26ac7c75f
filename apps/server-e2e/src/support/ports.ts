import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { freePort } from '@arrbiter/tools/fake-servarr';

/**
 * Whether process `pid` holds the listening TCP socket on `port` (Linux: the socket's inode in
 * /proc/net/tcp{,6}, in state LISTEN, among the process's file descriptors).
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // No IPv6 here.
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (local?.endsWith(hexPort) && state === '0A' && inode) inodes.add(`socket:[${inode}]`);
    }
  }
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // Exited.
  }
  return fds.some((fd) => {
    try {
      return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      return false; // Closed meanwhile.
    }
  });
}

/**
 * Starts something on a port found free, and on another when a process bound that one first (one can,
 * between `freePort` closing it and the start binding it); `taken` tells that failure from the others.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, taken = /EADDRINUSE/): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (!taken.test((error as Error).message) || attempt >= 3) throw error;
    }
  }
}
