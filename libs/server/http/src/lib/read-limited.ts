/**
 * Byte limits for bodies the server fetches from elsewhere (upstream discovery, OpenAPI descriptions,
 * template repositories). A declared `Content-Length` is not enough: a chunked answer declares nothing,
 * so bytes are counted as they arrive and the read stops, closing the connection, once past the limit.
 */

/** A body passed its byte limit; reading stopped there. */
export class BodyTooLargeError extends Error {
  constructor(
    /** The limit, in bytes. */
    readonly maxBytes: number,
    /** Bytes counted when reading stopped, or the declared `Content-Length`. */
    readonly bytes: number,
    /** Whether `bytes` is the declared `Content-Length` (nothing was read). */
    readonly declared = false,
  ) {
    super(declared ? `the body is ${bytes} bytes, more than ${maxBytes}` : `the body is larger than ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** One byte budget shared by several bodies (a git fetch makes several requests). */
export class ByteBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes counted so far. */
  get received(): number {
    return this.used;
  }

  /** Whether the limit was passed (a reader may have swallowed the error). */
  get exceeded(): boolean {
    return this.used > this.maxBytes;
  }

  /** Counts `bytes` more; throws `BodyTooLargeError` once past the limit. */
  take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.maxBytes) throw new BodyTooLargeError(this.maxBytes, this.used);
  }
}

/**
 * Passes a body's chunks on, counting them. Past the limit it throws `BodyTooLargeError` and leaves
 * the source: a fetch body is then cancelled and a Node stream destroyed, which closes the connection.
 */
export async function* limitBytes(
  source: AsyncIterable<Uint8Array>,
  limit: number | ByteBudget,
): AsyncGenerator<Uint8Array, void, undefined> {
  const budget = typeof limit === 'number' ? new ByteBudget(limit) : limit;
  for await (const chunk of source) {
    budget.take(chunk.byteLength);
    yield chunk;
  }
}

/**
 * Reads a whole body of at most `limit` bytes: a fetch `Response` (a declared `Content-Length` over
 * the limit is refused before reading), a web `ReadableStream` or a Node stream. Throws
 * `BodyTooLargeError` as soon as the count passes the limit, having stopped the transfer.
 */
export async function readLimited(
  body: Response | AsyncIterable<Uint8Array> | null | undefined,
  limit: number | ByteBudget,
): Promise<Buffer> {
  let source: AsyncIterable<Uint8Array> | null | undefined = body as AsyncIterable<Uint8Array> | null | undefined;
  if (body instanceof Response) {
    const maxBytes = typeof limit === 'number' ? limit : limit.maxBytes - limit.received;
    const declared = Number(body.headers.get('content-length') ?? 0);
    if (declared > maxBytes) {
      await body.body?.cancel();
      throw new BodyTooLargeError(maxBytes, declared, true);
    }
    source = body.body;
  }
  if (!source) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  for await (const chunk of limitBytes(source, limit)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** `readLimited` decoded as UTF-8 text (a leading byte order mark dropped, as `Response.text()` does). */
export async function readLimitedText(
  body: Response | AsyncIterable<Uint8Array> | null | undefined,
  limit: number | ByteBudget,
): Promise<string> {
  return new TextDecoder().decode(await readLimited(body, limit));
}
