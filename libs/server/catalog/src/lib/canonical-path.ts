/** A path the proxy accepts: what it matches is exactly what the upstream receives. */
export type CanonicalPath = { ok: true; path: string; segments: string[] } | { ok: false; reason: string };

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;
/** Unreserved characters, sub-delimiters but `;`, `:`, `@` and `/`: nothing to decode or refuse. */
const PLAIN = /^[A-Za-z0-9\-._~!$&'()*+,=:@/]*$/;
const DOT_SEGMENT = /(^|\/)\.{1,2}(\/|$)/;

function refuse(reason: string): CanonicalPath {
  return { ok: false, reason };
}

/**
 * Canonicalises the upstream path of a proxy request: percent-decodes unreserved
 * characters; refuses an encoded `/` or `\`, a backslash, a control character or NUL, a `;` path
 * parameter, or a `.`/`..` segment in any encoding; collapses repeated slashes and drops a trailing
 * one. Other escapes are kept (upper-cased), and the case of the path is kept.
 */
export function canonicalizePath(raw: string): CanonicalPath {
  // Fast path: nothing encoded, no dot segment, no refused character — only slashes to normalise.
  if (PLAIN.test(raw) && !DOT_SEGMENT.test(raw)) {
    const segments = raw.split('/').filter((s) => s !== '');
    return { ok: true, segments, path: `/${segments.join('/')}` };
  }
  const segments: string[] = [];
  for (const part of raw.split('/')) {
    if (part === '') continue;
    let out = '';
    for (let i = 0; i < part.length; i += 1) {
      const c = part.charCodeAt(i);
      if (c < 0x21 || c > 0x7e) return refuse('The path contains a control, space or non-ASCII character');
      if (c === 0x5c) return refuse('The path contains a backslash');
      if (c === 0x3b) return refuse('The path contains a ";" path parameter');
      if (c !== 0x25) {
        out += part[i];
        continue;
      }
      const hex = part.slice(i + 1, i + 3);
      if (!HEX.test(hex)) return refuse('The path contains a malformed percent-encoding');
      const code = parseInt(hex, 16);
      if (code < 0x20 || code === 0x7f) return refuse('The path contains an encoded control character or NUL');
      if (code === 0x2f || code === 0x5c) return refuse('The path contains an encoded "/" or "\\"');
      if (code === 0x3b) return refuse('The path contains an encoded ";"');
      const char = String.fromCharCode(code);
      out += UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
      i += 2;
    }
    if (out === '.' || out === '..') return refuse('The path contains a "." or ".." segment');
    segments.push(out);
  }
  return { ok: true, segments, path: `/${segments.join('/')}` };
}
