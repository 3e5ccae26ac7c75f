import type { IncomingMessage } from 'node:http';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { eventually } from '@arrbiter/server/testing';
import { BodyMemory, SMALL_BODY_BYTES, youngCollection } from './body-memory';

describe('BodyMemory', () => {
  it('requests one young-generation collection per threshold of body bytes, counted across streams', () => {
    const collect = jest.fn();
    const bodies = new BodyMemory(collect, 100);
    bodies.count(Buffer.alloc(60));
    bodies.count('x'.repeat(39));
    expect(collect).not.toHaveBeenCalled();
    bodies.count(Buffer.alloc(1));
    expect(collect).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 10; i += 1) bodies.count(Buffer.alloc(50));
    expect(collect).toHaveBeenCalledTimes(6);
    expect(bodies.collectionCount).toBe(6);
    expect(bodies.enabled).toBe(true);
  });

  it('watches bodies of unknown length or declared large, not small ones', () => {
    const collect = jest.fn();
    const bodies = new BodyMemory(collect, 100);
    const message = (headers: Record<string, string>) =>
      Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;
    const small = message({ 'content-length': String(SMALL_BODY_BYTES - 1) });
    const large = message({ 'content-length': String(SMALL_BODY_BYTES) });
    const chunked = message({ 'transfer-encoding': 'chunked' });
    for (const stream of [small, large, chunked]) bodies.watch(stream);
    expect(small.listenerCount('data')).toBe(0);
    large.write(Buffer.alloc(100));
    chunked.write(Buffer.alloc(100));
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('does nothing where collections cannot be requested', () => {
    const bodies = new BodyMemory(null, 10);
    for (let i = 0; i < 5; i += 1) bodies.count(Buffer.alloc(10));
    expect(bodies.enabled).toBe(false);
    expect(bodies.collectionCount).toBe(0);
  });

  it("obtains V8's collection function when the process runs with --expose-gc (npm test), and it runs a collection", async () => {
    const collect = youngCollection();
    expect(collect).toBeInstanceOf(Function);
    const kinds: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) kinds.push((entry as unknown as { detail: { kind: number } }).detail.kind);
    });
    observer.observe({ entryTypes: ['gc'] });
    collect?.();
    // A young-generation collection (V8 may widen it to a full one when the heap asks for it).
    const collections = () =>
      kinds.filter(
        (kind) => kind === constants.NODE_PERFORMANCE_GC_MINOR || kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    await eventually('the collection is observed', () => collections().length > 0);
    observer.disconnect();
    expect(collections()).not.toHaveLength(0);
  });
});
