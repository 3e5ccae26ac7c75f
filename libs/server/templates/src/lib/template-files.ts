import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AllowlistMap, TemplateProblem } from '@arrbiter/contracts';
import { overrideProblems } from '@arrbiter/server/catalog';

/** The Servarr applications whose blocks templates may hold. */
export const SERVICE_TYPES = ['sonarr', 'radarr', 'lidarr', 'prowlarr', 'readarr', 'whisparr'] as const;

/** A template's name: its files' name without `.json`. */
export const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._()&+'-]{0,99}$/;

/** Limits that keep a hostile or broken repository from exhausting the server. */
export const TEMPLATE_LIMITS = { maxFiles: 5_000, maxFileBytes: 256 * 1024 } as const;

/** Templates by name, each with its blocks by service type. */
export type TemplateSet = Map<string, Record<string, AllowlistMap>>;

export interface ParsedTemplates {
  templates: TemplateSet;
  problems: TemplateProblem[];
}

/** Methods sorted, paths sorted: equal blocks have equal JSON. */
export function normaliseAllowlist(map: AllowlistMap): AllowlistMap {
  return Object.fromEntries(
    Object.entries(map)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, methods]) => [path, [...new Set(methods)].sort()]),
  );
}

/**
 * Checks one template file's text: a JSON object mapping API paths to arrays of lower-case HTTP
 * methods. Returns the block, or the reason it is refused (a bad file never half-applies).
 */
export function parseTemplateFile(text: string): { block: AllowlistMap } | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { reason: `not valid JSON (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { reason: 'not a JSON object mapping API paths to arrays of HTTP methods' };
  }
  // A method listed twice is harmless in a community file: it is normalised away, not refused.
  const problems = overrideProblems(value)
    .filter((p) => !p.endsWith('lists a method twice'))
    .map((p) => p.replace(/^overrides/, 'the file'));
  if (problems.length > 0) return { reason: problems.slice(0, 5).join('; ') };
  return { block: normaliseAllowlist(value as AllowlistMap) };
}

/**
 * Reads a template repository laid out as `<root>/<serviceType>/<template>.json` (docs/usage.md: Templates). Every
 * file is validated on its own: a bad file or an unknown service type is reported and skipped.
 */
export async function readTemplateDirectory(root: string): Promise<ParsedTemplates> {
  const templates: TemplateSet = new Map();
  const problems: TemplateProblem[] = [];
  let files = 0;
  const entries = await readdir(root, { withFileTypes: true });
  for (const typeEntry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (typeEntry.name.startsWith('.') || !typeEntry.isDirectory()) continue;
    const serviceType = typeEntry.name;
    if (!(SERVICE_TYPES as readonly string[]).includes(serviceType)) {
      problems.push({ file: `${serviceType}/`, reason: `unknown service type (known: ${SERVICE_TYPES.join(', ')})` });
      continue;
    }
    const names = (await readdir(join(root, serviceType))).filter((n) => n.endsWith('.json')).sort();
    for (const fileName of names) {
      const file = `${serviceType}/${fileName}`;
      if (++files > TEMPLATE_LIMITS.maxFiles) {
        problems.push({ file, reason: `more than ${TEMPLATE_LIMITS.maxFiles} template files: the rest are skipped` });
        return { templates, problems };
      }
      const name = fileName.slice(0, -'.json'.length);
      if (!TEMPLATE_NAME.test(name)) {
        problems.push({ file, reason: "the name must be 1–100 letters, digits, spaces or . _ ( ) & + ' -" });
        continue;
      }
      const path = join(root, serviceType, fileName);
      const stats = await lstat(path);
      if (!stats.isFile()) {
        problems.push({ file, reason: 'not a regular file' });
        continue;
      }
      if (stats.size > TEMPLATE_LIMITS.maxFileBytes) {
        problems.push({ file, reason: `larger than ${TEMPLATE_LIMITS.maxFileBytes / 1024} KiB` });
        continue;
      }
      const parsed = parseTemplateFile(await readFile(path, 'utf8'));
      if ('reason' in parsed) {
        problems.push({ file, reason: parsed.reason });
        continue;
      }
      const blocks = templates.get(name) ?? {};
      blocks[serviceType] = parsed.block;
      templates.set(name, blocks);
    }
  }
  return { templates, problems };
}
