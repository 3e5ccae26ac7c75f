import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** What a declarative configuration file may weigh (the admin API takes as much). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/**
 * A secret reference in a document's text: `${NAME}` (an environment variable) or `${file:/path}` (a
 * file's content, one trailing line break dropped). `$${` writes a literal `${`.
 */
export const REFERENCE_PATTERN = /\$?\$\{(?:file:([^}]+)|([A-Za-z_][A-Za-z0-9_]*))\}/g;

/** A reference's value, or why it has none (never the value in a message). */
export type ReferenceValue = { value: string } | { problem: string };

/** A declarative configuration file, read once, with the value of every reference its text holds. */
export interface DocumentFile {
  /** Absolute path. */
  path: string;
  text: string;
  /** By reference as written (`${RADARR_KEY}`, `${file:/run/secrets/radarr}`). */
  references: ReadonlyMap<string, ReferenceValue>;
}

/**
 * Reads a declarative configuration file (`CONFIG_FILE`, `main.js import <file>`) and looks up every
 * secret reference in its text: environment variables in `environment`, files on disk. A reference
 * that cannot be resolved is kept with its problem: the document fails only if a value it uses has one
 * (a reference in a YAML comment does not matter). Throws when the file itself cannot be read.
 */
export function readDocumentFile(path: string, environment: NodeJS.ProcessEnv, cwd = process.cwd()): DocumentFile {
  const absolute = resolve(cwd, path);
  let text: string;
  try {
    const size = statSync(absolute).size;
    if (size > MAX_DOCUMENT_BYTES) throw new Error(`larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB`);
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`cannot be read (${reason}): ${absolute}`);
  }
  const references = new Map<string, ReferenceValue>();
  for (const match of text.matchAll(REFERENCE_PATTERN)) {
    const [reference, file, name] = match;
    if (reference.startsWith('$$') || references.has(reference)) continue;
    references.set(
      reference,
      file !== undefined ? readSecretFile(resolve(cwd, file.trim())) : variable(environment, name),
    );
  }
  return { path: absolute, text, references };
}

function variable(environment: NodeJS.ProcessEnv, name: string): ReferenceValue {
  const value = environment[name];
  return value === undefined || value === '' ? { problem: `the environment variable ${name} is not set` } : { value };
}

function readSecretFile(path: string): ReferenceValue {
  try {
    if (statSync(path).size > 64 * 1024) return { problem: `${path} is larger than 64 KiB` };
    const value = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    return value === '' ? { problem: `${path} is empty` } : { value };
  } catch (error) {
    return { problem: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}
