import { Readable } from 'node:stream';
import { BodyTooLargeError, ByteBudget, readLimited, readLimitedText } from './read-limited';

/** An endless Node stream of 1 KiB chunks that counts how many were asked for. */
function endless() {
  const state = { produced: 0 };
  const stream = new Readable({
    highWaterMark: 1024,
    read() {
      state.produced += 1;
      this.push(Buffer.alloc(1024, 'a'));
    },
  });
  return { stream, state };
}

describe('readLimited', () => {
  it('reads a body within the limit', async () => {
    expect(await readLimitedText(Readable.from([Buffer.from('\uFEFF{"a":'), Buffer.from('1}')]), 100)).toBe('{"a":1}');
    expect(await readLimited(new Response('hello'), 5)).toEqual(Buffer.from('hello'));
  });

  it('stops an endless stream just past the limit and destroys it', async () => {
    const { stream, state } = endless();
    await expect(readLimited(stream, 10 * 1024)).rejects.toThrow(new BodyTooLargeError(10 * 1024, 11 * 1024));
    expect(stream.destroyed).toBe(true);
    // Read-ahead aside, nothing more was produced.
    expect(state.produced).toBeLessThanOrEqual(11 + 2);
  });

  it('cancels a web stream past the limit', async () => {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readLimited(new Response(body), 4096)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(5 + 2);
  });

  it('refuses a declared Content-Length over the limit before reading', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
    const response = new Response(body, { headers: { 'content-length': '1000000' } });
    const error = (await readLimited(response, 1000).catch((e: unknown) => e)) as BodyTooLargeError;
    expect(error).toMatchObject({ maxBytes: 1000, bytes: 1_000_000, declared: true });
    expect(cancelled).toBe(true);
  });

  it('shares one budget between bodies', async () => {
    const budget = new ByteBudget(10);
    await readLimited(Readable.from([Buffer.alloc(6)]), budget);
    expect(budget.exceeded).toBe(false);
    await expect(readLimited(Readable.from([Buffer.alloc(6)]), budget)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(budget.exceeded).toBe(true);
  });
});
