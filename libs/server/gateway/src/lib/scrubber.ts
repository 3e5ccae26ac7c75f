import { Transform, TransformCallback } from 'node:stream';

/** One replacement: every occurrence of `from` becomes `to`. */
interface Rule {
  from: Buffer;
  to: Buffer;
  /** A match counts only when the byte after it cannot continue a host or port (`http://radarr` in `http://radarr.lan`). */
  bounded: boolean;
}

/** Bytes that continue a host name or a port: after a bounded form, such a byte means another host. */
function continuesHost(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    byte === 0x2d || // -
    byte === 0x2e || // .
    byte === 0x5f || // _
    byte === 0x3a // :
  );
}

/** What the scrubber replaces for one proxied call. */
export interface ScrubTargets {
  /** The upstream's own key. */
  upstreamKey: string;
  /** The key the caller presented: the upstream's key is replaced by it. */
  callerKey: string;
  /** The upstream's origin (`http://radarr:7878`). */
  origin: string;
  /** The upstream's URL base (`/radarr`) or ''. */
  basePath: string;
  /** Where the caller reaches this service: `PUBLIC_URL/proxy/{slug}`. */
  proxyUrl: string;
}

/**
 * The forms in which an upstream writes its own base URL, each with the proxy URL in the same form:
 * as is, with and without the scheme's default port, with JSON-escaped slashes (`http:\/\/host`) and
 * percent-encoded (upper- and lower-case escapes).
 */
function baseUrlForms(origin: string, basePath: string, proxyUrl: string): [string, string, boolean][] {
  const url = new URL(origin);
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  const hostForms = [url.host];
  // `new URL` drops a default port: the upstream may still write it.
  if (url.port === '') hostForms.push(`${url.hostname}:${defaultPort}`);
  const forms: [string, string, boolean][] = [];
  for (const host of hostForms) {
    const base = `${url.protocol}//${host}${basePath}`;
    // Without a URL base the form ends with the host or port: `http://radarr` must not match `http://radarr.lan`.
    const bounded = basePath === '';
    forms.push([base, proxyUrl, bounded]);
    forms.push([base.replaceAll('/', '\\/'), proxyUrl.replaceAll('/', '\\/'), bounded]);
    const encoded = encodeURIComponent(base);
    const encodedProxy = encodeURIComponent(proxyUrl);
    forms.push([encoded, encodedProxy, bounded]);
    const lower = encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
    if (lower !== encoded)
      forms.push([lower, encodedProxy.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()), bounded]);
  }
  return forms;
}

/**
 * Replaces the upstream's key and base URL in what goes back to the caller (the key stays secret): the key by the
 * caller's own proxy key, the base URL by the proxy URL, so that links keep working through the proxy
 * and stay subject to its allowlist. Patterns are ASCII, so bodies are searched as bytes, whatever
 * their text encoding; the streaming form keeps a tail of each chunk so that a match split across
 * chunks is found.
 */
export class Scrubber {
  private readonly rules: Rule[];
  /** The rules grouped by their first bytes: a body is searched once per group, not once per rule. */
  private readonly anchors: Anchor[];

  constructor(targets: ScrubTargets) {
    const pairs: [string, string, boolean][] = baseUrlForms(targets.origin, targets.basePath, targets.proxyUrl);
    if (targets.upstreamKey !== '') {
      pairs.push([targets.upstreamKey, targets.callerKey, false]);
      const upper = targets.upstreamKey.toUpperCase();
      if (upper !== targets.upstreamKey) pairs.push([upper, targets.callerKey.toUpperCase(), false]);
    }
    // Longest first: at one position the longest form wins (`http://radarr:80` before `http://radarr`).
    this.rules = pairs
      .filter(([from]) => from !== '')
      .map(([from, to, bounded]) => ({ from: Buffer.from(from, 'latin1'), to: Buffer.from(to, 'latin1'), bounded }))
      .sort((a, b) => b.from.length - a.from.length);
    this.anchors = anchorsOf(this.rules);
  }

  /** A header value with every pattern replaced. */
  text(value: string): string {
    const scrubbed = this.whole(Buffer.from(value, 'latin1'));
    return scrubbed.changed ? scrubbed.body.toString('latin1') : value;
  }

  /** A whole body with every pattern replaced; the same buffer when nothing matched. */
  whole(body: Buffer): { body: Buffer; changed: boolean } {
    const { parts, consumed } = this.scan(body, true);
    if (parts === undefined) return { body, changed: false };
    parts.push(body.subarray(consumed));
    return { body: Buffer.concat(parts), changed: true };
  }

  /**
   * A transform that replaces every pattern in a stream of chunks, matches across chunks included. Only
   * the end of a chunk that could begin a match is held back for the next one, so a stream of events
   * (`text/event-stream`) is not delayed.
   */
  stream(): Transform {
    let carry: Buffer | undefined;
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) => {
        const data = carry ? Buffer.concat([carry, chunk]) : chunk;
        const { parts, consumed, pending } = this.scan(data, false);
        const hold = pending ?? data.length - this.partialAtEnd(data, consumed);
        const out = parts ?? [];
        if (hold > consumed) out.push(data.subarray(consumed, hold));
        carry = hold < data.length ? Buffer.from(data.subarray(hold)) : undefined;
        done(null, out.length === 1 ? out[0] : out.length > 0 ? Buffer.concat(out) : undefined);
      },
      flush: (done: TransformCallback) => {
        const rest = carry && this.whole(carry).body;
        carry = undefined;
        done(null, rest);
      },
    });
  }

  /** How many bytes at the end of `data` (after `from`) could be the beginning of a match. */
  private partialAtEnd(data: Buffer, from: number): number {
    let longest = 0;
    for (const rule of this.rules) {
      const pattern = rule.from;
      // A bounded form complete at the very end still needs the byte after it.
      const max = Math.min(rule.bounded ? pattern.length : pattern.length - 1, data.length - from);
      for (let length = max; length > longest; length -= 1) {
        const start = data.length - length;
        if (data[start] === pattern[0] && data.subarray(start).equals(pattern.subarray(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }

  /**
   * Finds the matches in `data` left to right. Returns the output up to the end of the last match
   * (undefined when nothing matched) and where that is. When `final` is false, a match that the next
   * chunk could still change (a longer form beginning at the same place, or a bounded form whose
   * next byte is not there yet) stops the scan: `pending` is where it begins.
   */
  private scan(data: Buffer, final: boolean): { parts: Buffer[] | undefined; consumed: number; pending?: number } {
    let parts: Buffer[] | undefined;
    let consumed = 0;
    const anchors = this.anchors;
    // The next position of each anchor at or after `consumed` (-1: none left). Anchors are as long as
    // each other and differ, so two never start at the same position.
    const next = anchors.map((anchor) => data.indexOf(anchor.bytes, 0));
    for (;;) {
      let best = -1;
      for (let i = 0; i < anchors.length; i += 1) {
        const at = next[i];
        if (at >= 0 && (best < 0 || at < next[best])) best = i;
      }
      if (best < 0) break;
      const at = next[best];
      const found = this.matchAt(data, at, anchors[best].rules, final);
      if (found === PENDING) return { parts, consumed, pending: at };
      if (found === NONE) {
        next[best] = data.indexOf(anchors[best].bytes, at + 1);
        continue;
      }
      const rule = this.rules[found];
      parts ??= [];
      if (at > consumed) parts.push(data.subarray(consumed, at));
      parts.push(rule.to);
      consumed = at + rule.from.length;
      for (let i = 0; i < anchors.length; i += 1)
        if (next[i] >= 0 && next[i] < consumed) next[i] = data.indexOf(anchors[i].bytes, consumed);
    }
    return { parts, consumed };
  }

  /**
   * The rule that matches at `at` among `candidates` (indexes of rules beginning with the anchor found
   * there, longest first): the longest whose whole form is there, but a bounded form followed by a byte
   * of a host name. `PENDING` when the next chunk could still change it (see `undecided`); `NONE`.
   */
  private matchAt(data: Buffer, at: number, candidates: readonly number[], final: boolean): number {
    for (const index of candidates) {
      const rule = this.rules[index];
      const end = at + rule.from.length;
      if (end > data.length || data.compare(rule.from, 0, rule.from.length, at, end) !== 0) continue;
      if (!final && this.undecided(data, at, index)) return PENDING;
      if (rule.bounded && end < data.length && continuesHost(data[end])) continue;
      return index;
    }
    return NONE;
  }

  /** Whether what follows a match of rule `index` at `at` is still to come and could change it. */
  private undecided(data: Buffer, at: number, index: number): boolean {
    const rule = this.rules[index];
    if (rule.bounded && at + rule.from.length === data.length) return true;
    const tail = data.subarray(at);
    // Rules are sorted longest first: a longer one of which what is here is the beginning.
    for (let i = 0; i < index; i += 1) {
      const longer = this.rules[i].from;
      if (longer.length > tail.length && longer.subarray(0, tail.length).equals(tail)) return true;
    }
    return false;
  }
}

/** The first bytes of a group of rules, and the rules (their indexes, longest first) that begin with them. */
interface Anchor {
  bytes: Buffer;
  rules: number[];
}

/** An anchor's length at most: every base URL form begins with `http`, the key's forms with its first bytes. */
const ANCHOR_BYTES = 4;

/** What `matchAt` answers when no rule matches there, and when the next chunk must decide. */
const NONE = -1;
const PENDING = -2;

/**
 * The rules (sorted longest first) grouped by their first bytes, all of one length: the base URL's forms
 * share `http`, so a body is searched three times (that, the key and the upper-case key) rather than once
 * per form. With nothing to replace in a 1 KB JSON body, 0.9 µs instead of 1.9 (six forms;
 * docs/performance-log.md, "Results — 2026-11-28 (night)").
 */
function anchorsOf(rules: readonly Rule[]): Anchor[] {
  const length = Math.min(ANCHOR_BYTES, ...rules.map((rule) => rule.from.length));
  const anchors = new Map<string, Anchor>();
  rules.forEach((rule, index) => {
    const bytes = rule.from.subarray(0, length);
    const key = bytes.toString('latin1');
    const anchor = anchors.get(key);
    if (anchor) anchor.rules.push(index);
    else anchors.set(key, { bytes, rules: [index] });
  });
  return [...anchors.values()];
}
