import { ROUTE_PARAM } from '@arrbiter/shared/allowlist-rules';
import type { KnownClientCall } from './known-client';

/**
 * A known client's call path is either the path exactly as sent (`/api/v3/movie/123`: an id the proxy
 * canonicalizes to its catalog route `/api/v3/movie/{id}`), or, where the client builds a part of it at
 * run time that no catalog route turns into a parameter (a backup's file name, a cover's hash), a
 * template: `/backup/scheduled/{file}`, with a sample value for each parameter in `pathSamples`. The
 * template is what the allowlist grants (an allowlist path with `{file}` matches any segment); the
 * concrete path, with the samples in place, is what a replay or the fit sends through the proxy.
 */

/** A call's path parameters (`{file}`), in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(ROUTE_PARAM)].map((match) => match[1]);
}

/**
 * The call's path with a sample in place of each `{param}` (its `pathSamples` entry): a request the
 * client could send. A path without parameters is returned as it is. Throws when a parameter has no
 * sample (the data spec keeps such files out of the catalogue).
 */
export function concretePath(call: Pick<KnownClientCall, 'path' | 'pathSamples'>): string {
  return call.path.replace(ROUTE_PARAM, (_, name: string) => {
    const sample = call.pathSamples?.[name];
    if (sample === undefined) throw new Error(`${call.path}: no sample for {${name}} in pathSamples`);
    return sample;
  });
}

/** The request as the client could send it: the concrete path, and `?query` when the call has one. */
export function concreteRequest(call: Pick<KnownClientCall, 'path' | 'pathSamples' | 'query'>): string {
  const path = concretePath(call);
  return call.query ? `${path}?${call.query}` : path;
}

/** A file name with an extension (`poster.jpg`, `radarr_backup_….zip`). */
const FILE_NAME = /\.[A-Za-z][A-Za-z0-9]{0,4}$/;
/** Digits joined by `.`, `_`, `-` or `:`: a date, a time or a version (`2026.08.01`, `04:00`, `v1.0.0`). */
const DATE_OR_VERSION = /\d+[._:-]\d+/;
/** Only digits: an id or a timestamp. */
const DIGITS = /^\d+$/;
/** A hash, a token or a UUID: eight or more hexadecimal digits (with `-`), at least one a digit. */
const HEX_TOKEN = /^(?=[0-9a-f-]*\d)[0-9a-f]{8,}(-[0-9a-f]+)*$/i;

/**
 * Why a literal path segment looks built by the client at run time (undefined when it does not): a
 * file name with an extension, a date, time or version, an id or timestamp, a hash or UUID. Such a
 * segment must be a `{param}` where no catalog route canonicalizes it (a call outside the API): granted
 * as written, the literal would only ever match the one sample.
 */
export function runtimeLiteral(segment: string): string | undefined {
  if (FILE_NAME.test(segment)) return 'a file name';
  if (DATE_OR_VERSION.test(segment)) return 'a date, time or version';
  if (DIGITS.test(segment)) return 'an id or timestamp';
  if (HEX_TOKEN.test(segment)) return 'a hash or UUID';
  return undefined;
}
