/** The segments an unknown path's warning is keyed by at most; deeper ones are summed up by `DEEPER`. */
export const SHAPE_MAX_SEGMENTS = 6;
/** A literal segment longer than this is taken for an id (a token, a hash, a name made up to flood). */
export const SHAPE_MAX_SEGMENT_LENGTH = 32;
/** What an id segment (number, UUID, hex, long token) becomes in a shape: a valid route parameter. */
export const SHAPE_ID = '{id}';
/** The last segment of a shape whose path had more than `SHAPE_MAX_SEGMENTS` segments. */
export const SHAPE_DEEPER = '…';
/** The longest a shape can be (six segments of at most 32 characters, their slashes and `/…`). */
export const SHAPE_MAX_LENGTH = SHAPE_MAX_SEGMENTS * (SHAPE_MAX_SEGMENT_LENGTH + 1) + 2;
/** The longest sample path a warning keeps; a longer one is cut and ends with `…`. */
export const SAMPLE_MAX_LENGTH = 512;

const NUMBER = /^\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Hex of 8 or more with a digit (a hash, an id), not a word made of the letters a to f. */
const HEX = /^(?=.*\d)[0-9a-f]{8,}$/i;
/** Letters and digits mixed, 16 characters or more: an API key, a hash in base 32/64, a slug with an id. */
const TOKEN = /^(?=.*\d)(?=.*[a-z])[\w\-.~%=+]{16,}$/i;

/**
 * What the warnings of a path that resolves to no known route are aggregated by, so that a caller
 * cannot make a row per call: the first `SHAPE_MAX_SEGMENTS` segments of the canonical path (more are
 * folded into a last `…`), ids (numbers, UUIDs, hex of 8 or more, long or mixed tokens, and any
 * segment with a brace) folded to `{id}`, literals lower-cased (Servarr routing ignores case). At most
 * `SHAPE_MAX_LENGTH` characters. Without `…` it is a valid allowlist path (see `isGrantableShape`).
 */
export function unknownPathShape(path: string): string {
  const segments = path.split('/');
  let shape = '';
  let taken = 0;
  for (const segment of segments) {
    if (segment === '') continue;
    if (taken === SHAPE_MAX_SEGMENTS) return `${shape}/${SHAPE_DEEPER}`;
    shape += `/${isId(segment) ? SHAPE_ID : segment.toLowerCase()}`;
    taken += 1;
  }
  return shape === '' ? '/' : shape;
}

function isId(segment: string): boolean {
  return (
    segment.length > SHAPE_MAX_SEGMENT_LENGTH ||
    NUMBER.test(segment) ||
    HEX.test(segment) ||
    UUID.test(segment) ||
    TOKEN.test(segment) ||
    segment.includes('{') ||
    segment.includes('}')
  );
}

/** Whether a shape stands for exactly the paths of its segments (not for deeper ones), so can be granted. */
export function isGrantableShape(shape: string): boolean {
  return shape.startsWith('/') && !shape.endsWith(`/${SHAPE_DEEPER}`);
}

/** The sample a warning keeps of a path: itself, or its first 511 characters and `…` (never a valid path). */
export function samplePath(path: string): string {
  return path.length <= SAMPLE_MAX_LENGTH ? path : `${path.slice(0, SAMPLE_MAX_LENGTH - 1)}${SHAPE_DEEPER}`;
}

/** Whether a sample is a whole path (not cut by `samplePath`). Canonical paths are ASCII only. */
export function isWholeSample(path: string): boolean {
  return !path.endsWith(SHAPE_DEEPER);
}
