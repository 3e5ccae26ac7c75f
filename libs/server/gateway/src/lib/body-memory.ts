import type { IncomingMessage } from 'node:http';
import { runInNewContext } from 'node:vm';

/** V8's `gc` function (Node's `--expose-gc`), asked for a young-generation collection only. */
export type YoungCollection = () => void;

/** Bodies declared smaller than this are not counted (see `BodyMemory.watch`). */
export const SMALL_BODY_BYTES = 256 * 1024;

/** A young-generation collection is requested after this many forwarded body bytes. */
export const BODY_BYTES_PER_COLLECTION = 8 * 1024 * 1024;

type GcFunction = (options: { type: 'minor'; execution: 'sync' }) => void;

/**
 * V8's `gc` function, asked for a young-generation collection only. Node exposes it when the process is
 * started with `--expose-gc`, as `npm start`, `npm test` and the image's `CMD` do; without the flag
 * this is null and the memory policy below is off (one start-up line says so).
 */
export function youngCollection(): YoungCollection | null {
  let gc = (globalThis as { gc?: GcFunction }).gc;
  // A context of its own has it as well (jest's test contexts do not copy it from the process).
  if (typeof gc !== 'function') gc = runInNewContext('typeof gc === "function" ? gc : undefined') as GcFunction;
  if (typeof gc !== 'function') return null;
  const collect = gc;
  return () => collect({ type: 'minor', execution: 'sync' });
}

/**
 * Keeps the memory that streamed bodies hold bounded.
 *
 * Every chunk of a body forwarded through Arrbiter is a fresh Buffer (one socket read, up to 64 KiB)
 * whose memory lives outside V8's heap. V8 frees it only when a collection runs, and little JavaScript
 * garbage is made per chunk, so for a large download or upload nothing else triggers one until about
 * 64 MB of such memory has piled up: a bare http-proxy-middleware passthrough streaming 1 GB grows its
 * resident memory by 85–105 MB (docs/performance-log.md). After every `BODY_BYTES_PER_COLLECTION` forwarded
 * body bytes, counted across all requests, this asks V8 for a young-generation collection (a scavenge of
 * a nearly empty young generation, well under a millisecond), which frees the chunks already written on.
 * Streaming 1 GB then grows resident memory by a few MB; small API calls rarely reach the threshold.
 */
export class BodyMemory {
  private bytes = 0;
  private collections = 0;

  constructor(
    private readonly collect: YoungCollection | null,
    private readonly bytesPerCollection = BODY_BYTES_PER_COLLECTION,
  ) {}

  /** Whether collections can be requested on this Node.js. */
  get enabled(): boolean {
    return this.collect !== null;
  }

  /** How many collections were requested so far. */
  get collectionCount(): number {
    return this.collections;
  }

  /**
   * Counts the body of `message` as it streams, unless it is declared smaller than
   * `SMALL_BODY_BYTES`: handling a small API call makes enough JavaScript garbage that V8 collects
   * regularly anyway, and a listener on every response would cost every call.
   */
  watch(message: IncomingMessage): void {
    if (!this.collect) return;
    const length = message.headers['content-length'];
    if (length !== undefined && Number(length) < SMALL_BODY_BYTES) return;
    message.on('data', this.count);
  }

  /** A `'data'` listener for forwarded bodies (bound, so one function serves every stream). */
  readonly count = (chunk: Buffer | string): void => {
    this.bytes += chunk.length;
    if (this.bytes < this.bytesPerCollection || !this.collect) return;
    this.bytes = 0;
    this.collections++;
    this.collect();
  };
}
