import * as fs from 'node:fs';
import { mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { TemplateRepositorySettings } from '@arrbiter/contracts';
import { BodyTooLargeError, ByteBudget, limitBytes } from '@arrbiter/server/http';
import { ParsedTemplates, readTemplateDirectory } from '@arrbiter/server/templates';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { isLocalDirectory, localDirectoryProblem, LocalDirectoryRules } from './local-directory';
import { withoutContent } from './problem-reasons';

/** Limits of one fetch: a hostile or huge repository fails the sync instead of the server. */
export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { timeoutMs: 60_000, maxBytes: 50 * 1024 * 1024 };

/** Why a repository could not be read (the sync changes nothing). */
export class RepositoryFetchError extends Error {}

/** Git HTTP credentials (`TEMPLATE_REPOSITORY_TOKEN`), sent only to `origin`. */
export interface RepositoryAuth {
  readonly origin: string;
  readonly username: string;
  readonly token: string;
}

/**
 * The text with every spelling of the credentials a server or a library could echo replaced: the
 * token as is, percent-encoded, in base64 (alone and as the Basic `username:token` pair, both
 * alphabets).
 */
export function withoutCredentials(text: string, auth: RepositoryAuth | undefined): string {
  if (!auth) return text;
  const pair = Buffer.from(`${auth.username}:${auth.token}`);
  const token = Buffer.from(auth.token);
  const spellings = [
    auth.token,
    encodeURIComponent(auth.token),
    pair.toString('base64'),
    pair.toString('base64url'),
    token.toString('base64'),
    token.toString('base64url'),
  ]
    .map((s) => s.replace(/=+$/, ''))
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (const spelling of spellings) result = result.split(spelling).join('[redacted]');
  return result;
}

export interface FetchedTemplates extends ParsedTemplates {
  /** The commit read (git), or null for a local directory. */
  commit: string | null;
}

async function collect(
  body: AsyncIterableIterator<Uint8Array> | undefined,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!body) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  const joined = Buffer.concat(chunks);
  const copy = new Uint8Array(new ArrayBuffer(joined.byteLength));
  copy.set(joined);
  return copy;
}

/**
 * isomorphic-git's HTTP client on fetch, with one deadline and one byte budget for the whole fetch.
 * Bytes are counted as they arrive (declared length or not); past the budget the body is cancelled,
 * which closes the connection.
 */
function limitedHttp(budget: ByteBudget, signal: AbortSignal, authOrigin: string | undefined): HttpClient {
  return {
    async request({ url, method = 'GET', headers = {}, body }: GitHttpRequest): Promise<GitHttpResponse> {
      const payload = await collect(body);
      // Credentials go to the repository's own origin only (isomorphic-git reuses them for every request).
      const sent = Object.fromEntries(
        Object.entries(headers).filter(
          ([name]) => name.toLowerCase() !== 'authorization' || new URL(url).origin === authOrigin,
        ),
      );
      // fetch drops Authorization on a redirect to another origin.
      const response = await fetch(url, { method, headers: sent, body: payload, signal, redirect: 'follow' });
      return {
        url: response.url,
        method,
        statusCode: response.status,
        statusMessage: response.statusText,
        headers: Object.fromEntries(response.headers),
        body: response.body ? limitBytes(response.body, budget) : undefined,
      };
    },
  };
}

function describe(
  error: unknown,
  settings: TemplateRepositorySettings,
  limits: FetchLimits,
  budget: ByteBudget,
): string {
  // isomorphic-git's pkt-line reader takes a failing body for its end, and then reports something
  // else (a ref not found): the budget says what happened.
  if (error instanceof BodyTooLargeError || budget.exceeded)
    return `the repository is larger than ${limits.maxBytes / 1024 / 1024} MB`;
  if (error instanceof RepositoryFetchError) return error.message;
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${limits.timeoutMs / 1000} s`;
  if (e.code === 'HttpError') return `the server answered ${e.message ?? 'an HTTP error'}`;
  if (e.code === 'UserCanceledError')
    return 'the server refused the credentials (HTTP 401): check TEMPLATE_REPOSITORY_TOKEN';
  if (e.code === 'NotFoundError') return `ref "${settings.ref}" not found (${e.message ?? ''})`.trim();
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

/** The folder of templates inside a checkout, refusing a path that leaves it. */
async function templateRoot(root: string, path: string): Promise<string> {
  const folder = resolve(root, path);
  if (relative(root, folder).startsWith('..')) throw new RepositoryFetchError('path leaves the repository');
  const real = await realpath(folder).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory())
    throw new RepositoryFetchError(`there is no folder "${path || '.'}" in the repository`);
  if (relative(await realpath(root), real).startsWith('..'))
    throw new RepositoryFetchError('path leaves the repository');
  return real;
}

/** Reads a folder of templates; the problems name files and never quote them. */
async function readTemplates(folder: string, commit: string | null): Promise<FetchedTemplates> {
  const { templates, problems } = await readTemplateDirectory(folder);
  return { templates, problems: withoutContent(problems), commit };
}

/**
 * Reads the templates of a repository: a local directory directly (only where `rules` allow, when
 * given), a git URL by a shallow clone over HTTP(S) (isomorphic-git, no git binary) into a temporary
 * folder under `workDir`, removed after. `auth`: credentials for a server that asks (HTTP 401), sent
 * only to their origin and never put in an error.
 */
export async function fetchTemplateRepository(
  settings: TemplateRepositorySettings,
  workDir: string,
  limits: FetchLimits = DEFAULT_FETCH_LIMITS,
  rules?: LocalDirectoryRules,
  auth?: RepositoryAuth,
): Promise<FetchedTemplates> {
  if (isLocalDirectory(settings.url)) {
    const refused = rules && (await localDirectoryProblem(settings.url, settings.path, rules));
    if (refused) throw new RepositoryFetchError(refused);
    const root = await realpath(settings.url).catch(() => undefined);
    if (!root) throw new RepositoryFetchError(`cannot read ${settings.url}: no such directory`);
    return readTemplates(await templateRoot(root, settings.path), null);
  }
  // Loaded on the first sync, not at start-up (it is a large module).
  const { default: git } = await import('isomorphic-git');
  fs.mkdirSync(workDir, { recursive: true });
  const dir = await mkdtemp(join(workDir, 'checkout-'));
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const budget = new ByteBudget(limits.maxBytes);
    const http = limitedHttp(budget, signal, auth?.origin);
    const isCommit = /^[0-9a-f]{40}$/i.test(settings.ref);
    try {
      await git.clone({
        fs,
        http,
        dir,
        url: settings.url,
        ...(isCommit || settings.ref === '' ? {} : { ref: settings.ref }),
        singleBranch: true,
        noTags: true,
        // A commit may be anywhere in the branch's history; a branch or tag needs only its tip.
        ...(isCommit ? {} : { depth: 1 }),
        noCheckout: isCommit,
        ...(auth
          ? {
              onAuth: () => ({ username: auth.username, password: auth.token }),
              // Refused once: no retry with the same token.
              onAuthFailure: () => ({ cancel: true }),
            }
          : {}),
      });
      if (isCommit) await git.checkout({ fs, dir, ref: settings.ref, force: true });
    } catch (error) {
      throw new RepositoryFetchError(
        withoutCredentials(`cannot fetch ${settings.url}: ${describe(error, settings, limits, budget)}`, auth),
      );
    }
    const commit = await git.resolveRef({ fs, dir, ref: 'HEAD' });
    return await readTemplates(await templateRoot(dir, settings.path), commit);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
