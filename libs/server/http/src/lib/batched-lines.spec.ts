import { eventually } from '@arrbiter/server/testing';
import { BatchedLines, LineSink } from './batched-lines';

class Sink implements LineSink {
  readonly chunks: string[] = [];
  syncFlushes = 0;
  write(chunk: string): void {
    this.chunks.push(chunk);
  }
  flushSync(): void {
    this.syncFlushes += 1;
  }
}

describe(BatchedLines.name, () => {
  const open: BatchedLines[] = [];
  function batched(batchChars: number, intervalMs = 60_000): { lines: BatchedLines; sink: Sink } {
    const sink = new Sink();
    const lines = new BatchedLines(sink, { batchChars, intervalMs });
    open.push(lines);
    return { lines, sink };
  }
  afterEach(() => open.splice(0).forEach((lines) => lines.close()));

  it('hands lines on in order, one joined batch once enough characters have gathered', () => {
    const { lines, sink } = batched(10);
    lines.write('aaaa\n');
    lines.write('bbb\n');
    expect(sink.chunks).toEqual([]);
    lines.write('c\n');
    expect(sink.chunks).toEqual(['aaaa\nbbb\nc\n']);
    lines.write('dddddddddddd\n');
    expect(sink.chunks).toEqual(['aaaa\nbbb\nc\n', 'dddddddddddd\n']);
  });

  it('hands a partial batch on after the interval', async () => {
    const { lines, sink } = batched(1_000_000, 20);
    lines.write('one\n');
    lines.write('two\n');
    await eventually('the interval hands the batch on', () => sink.chunks.length > 0);
    expect(sink.chunks).toEqual(['one\ntwo\n']);
  });

  it('flushes synchronously on demand, the gathered lines first', () => {
    const { lines, sink } = batched(1_000_000);
    lines.write('start-up line\n');
    lines.flushSync();
    expect(sink.chunks).toEqual(['start-up line\n']);
    expect(sink.syncFlushes).toBe(1);
  });

  it('hands on what it holds before any other exit handler runs', () => {
    const { lines, sink } = batched(1_000_000);
    lines.write('last words\n');
    const [first] = process.listeners('exit') as Array<() => void>;
    first();
    expect(sink.chunks).toEqual(['last words\n']);
    const [beforeExit] = process.listeners('beforeExit') as Array<() => void>;
    lines.write('more\n');
    beforeExit();
    expect(sink.chunks).toEqual(['last words\n', 'more\n']);
  });

  it('removes its timer and exit hooks when closed', () => {
    const exitListeners = process.listenerCount('exit');
    const { lines } = batched(10);
    expect(process.listenerCount('exit')).toBe(exitListeners + 1);
    lines.close();
    expect(process.listenerCount('exit')).toBe(exitListeners);
  });
});
