import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { AppConfig } from '@arrbiter/server/config';

/** Which local directories a template repository may be read from. */
export interface LocalDirectoryRules {
  /** `TEMPLATE_ROOT`: the only tree a directory set through the admin API may be in (unset: none). */
  templateRoot: string | undefined;
  /** The directory the operator named in `TEMPLATE_REPOSITORY`: their choice, allowed with any folder in it. */
  operatorDirectory: string | undefined;
}

export function localDirectoryRules(config: AppConfig): LocalDirectoryRules {
  const named = config.templateRepository.url;
  return { templateRoot: config.templateRoot, operatorDirectory: named.startsWith('/') ? named : undefined };
}

/** Whether a repository URL names a local directory rather than a git server. */
export function isLocalDirectory(url: string): boolean {
  return url.startsWith('/');
}

/** Whether `inner` is `outer` or inside it (both real paths). */
function within(outer: string, inner: string): boolean {
  const path = relative(outer, inner);
  return path === '' || (path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path));
}

async function realDirectory(path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    return (await stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the folder `path` of the local directory `url` may not be read, or undefined when it may: its
 * real path (`..` and symbolic links resolved, as the reader will resolve them) must be inside
 * `TEMPLATE_ROOT` or inside the directory the operator named. A folder that does not exist gets the
 * same answer as one outside, so the check tells nothing about the rest of the file system.
 */
export async function localDirectoryProblem(
  url: string,
  path: string,
  rules: LocalDirectoryRules,
): Promise<string | undefined> {
  const allowed = [rules.operatorDirectory, rules.templateRoot].filter((d): d is string => d !== undefined);
  const wanted = path === '' ? url : `${url}/${path}`;
  if (allowed.length > 0) {
    const folder = await realDirectory(resolve((await realDirectory(url)) ?? url, path));
    for (const directory of allowed) {
      const root = await realDirectory(directory);
      if (folder !== undefined && root !== undefined && within(root, folder)) return undefined;
    }
  }
  if (rules.templateRoot === undefined) {
    return `${wanted}: a local directory can be set here only inside TEMPLATE_ROOT, and TEMPLATE_ROOT is not set on this server (use a git URL, or ask the operator to set TEMPLATE_ROOT)`;
  }
  return `${wanted} is not a directory inside TEMPLATE_ROOT (${rules.templateRoot})`;
}
