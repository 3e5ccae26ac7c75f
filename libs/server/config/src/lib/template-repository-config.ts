import { readSecret } from './staff-auth-config';

/** Git HTTP credentials for the template repository the operator names. */
export interface TemplateRepositoryAuth {
  /** The only origin (`https://host:port`) the token is sent to: `TEMPLATE_REPOSITORY`'s. */
  readonly origin: string;
  readonly username: string;
  readonly token: string;
}

export interface TemplateRepositoryConfig {
  templateRepository: { url: string; ref: string; path: string };
  templateRepositoryAuth: TemplateRepositoryAuth | undefined;
}

/** A URL with a user (and maybe a password) before its host: `scheme://user:token@host/…`. */
const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;

function origin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `TEMPLATE_REPOSITORY` (a git URL without credentials, an absolute directory, or `none`) and its
 * credentials: `TEMPLATE_REPOSITORY_TOKEN` or `TEMPLATE_REPOSITORY_TOKEN_FILE`, with
 * `TEMPLATE_REPOSITORY_USERNAME` (default `x-access-token`). Problems name the variables and never
 * quote a credential.
 */
export function parseTemplateRepository(
  read: (name: string) => string | undefined,
  fallback: TemplateRepositoryConfig['templateRepository'],
  problems: string[],
): TemplateRepositoryConfig {
  let templateRepository = fallback;
  const repository = read('TEMPLATE_REPOSITORY');
  const credentialed = repository !== undefined && USERINFO.test(repository);
  if (repository !== undefined) {
    if (credentialed)
      problems.push(
        'TEMPLATE_REPOSITORY carries credentials in its URL (user:token@host): every admin would see them, and exports and logs would carry them. Remove them from the URL and set TEMPLATE_REPOSITORY_TOKEN (or TEMPLATE_REPOSITORY_TOKEN_FILE)',
      );
    else if (repository.toLowerCase() === 'none') templateRepository = { url: '', ref: '', path: '' };
    else if (repository.startsWith('/')) templateRepository = { url: repository, ref: '', path: '' };
    else if (origin(repository) !== undefined) templateRepository = { url: repository, ref: 'main', path: '' };
    else
      problems.push(
        `TEMPLATE_REPOSITORY: ${JSON.stringify(repository)} is not an http(s) git URL or an absolute directory (or use "none")`,
      );
  }

  const before = problems.length;
  const token = readSecret(
    read('TEMPLATE_REPOSITORY_TOKEN'),
    read('TEMPLATE_REPOSITORY_TOKEN_FILE'),
    'TEMPLATE_REPOSITORY_TOKEN',
    problems,
  );
  const username = read('TEMPLATE_REPOSITORY_USERNAME');
  if (token === undefined) {
    if (username !== undefined && problems.length === before)
      problems.push('TEMPLATE_REPOSITORY_USERNAME is set without TEMPLATE_REPOSITORY_TOKEN (or _FILE)');
    return { templateRepository, templateRepositoryAuth: undefined };
  }
  if (!/^[\x21-\x7e]+$/.test(token))
    problems.push('TEMPLATE_REPOSITORY_TOKEN must be printable ASCII without spaces (a git HTTP token)');
  if (username !== undefined && !/^[\x21-\x39\x3b-\x7e]{1,200}$/.test(username))
    problems.push('TEMPLATE_REPOSITORY_USERNAME must be 1–200 printable ASCII characters without spaces or ":"');
  const tokenOrigin = repository === undefined || credentialed ? undefined : origin(repository);
  // With credentials in the URL, that is reported above.
  if (tokenOrigin === undefined && !credentialed)
    problems.push(
      'TEMPLATE_REPOSITORY_TOKEN is set but TEMPLATE_REPOSITORY does not name an http(s) git URL: the token is sent only to the origin of the repository named there',
    );
  if (problems.length > before || tokenOrigin === undefined)
    return { templateRepository, templateRepositoryAuth: undefined };
  return {
    templateRepository,
    templateRepositoryAuth: { origin: tokenOrigin, username: username ?? 'x-access-token', token },
  };
}
