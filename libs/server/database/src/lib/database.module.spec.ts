import type { DataSource } from 'typeorm';
import { DatabaseLifecycle } from './database.module';

/** A promise the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(DatabaseLifecycle.name, () => {
  it('runs the registered drains one after another, in order, and only then destroys the DataSource', async () => {
    const events: string[] = [];
    const lifecycle = new DatabaseLifecycle({
      destroy: async () => void events.push('destroy'),
    } as unknown as DataSource);
    const first = deferred();
    const second = deferred();
    lifecycle.beforeClose(async () => {
      events.push('first drain');
      await first.promise;
      events.push('first drained');
    });
    lifecycle.beforeClose(async () => {
      events.push('second drain');
      await second.promise;
      events.push('second drained');
    });

    const shutdown = lifecycle.onApplicationShutdown();
    await settle();
    expect(events).toEqual(['first drain']);

    first.resolve();
    await settle();
    expect(events).toEqual(['first drain', 'first drained', 'second drain']);

    second.resolve();
    await shutdown;
    expect(events).toEqual(['first drain', 'first drained', 'second drain', 'second drained', 'destroy']);
  });

  it('destroys the DataSource when nothing registered a drain', async () => {
    const destroy = jest.fn(async () => undefined);
    await new DatabaseLifecycle({ destroy } as unknown as DataSource).onApplicationShutdown();
    expect(destroy).toHaveBeenCalledTimes(1);
  });
});
