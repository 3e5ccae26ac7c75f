import { Change, ChangeBus } from './change-bus';

/** A promise the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(ChangeBus.name, () => {
  it('hands each change, with its topic and id, to every subscriber in the order they subscribed', async () => {
    const bus = new ChangeBus();
    const seen: [string, Change][] = [];
    bus.subscribe((change) => void seen.push(['first', change]));
    bus.subscribe((change) => void seen.push(['second', change]));

    await bus.publish('apps', 'app-1');
    await bus.publish('catalog');

    expect(seen).toEqual([
      ['first', { topic: 'apps', id: 'app-1' }],
      ['second', { topic: 'apps', id: 'app-1' }],
      ['first', { topic: 'catalog', id: undefined }],
      ['second', { topic: 'catalog', id: undefined }],
    ]);
  });

  it('resolves only once every listener has finished, and runs the listeners side by side', async () => {
    const bus = new ChangeBus();
    const slow = deferred();
    const slower = deferred();
    const started: string[] = [];
    bus.subscribe(async () => {
      started.push('slow');
      await slow.promise;
    });
    bus.subscribe(async () => {
      started.push('slower');
      await slower.promise;
    });

    let published = false;
    const publishing = bus.publish('proxies', 'proxy-1').then(() => (published = true));
    await settle();
    // The second listener did not wait for the first one to finish.
    expect(started).toEqual(['slow', 'slower']);
    expect(published).toBe(false);

    slow.resolve();
    await settle();
    expect(published).toBe(false);

    slower.resolve();
    await publishing;
    expect(published).toBe(true);
  });

  it('stops handing changes to a listener once it unsubscribed, and only to that one', async () => {
    const bus = new ChangeBus();
    const seen: string[] = [];
    const unsubscribe = bus.subscribe(() => void seen.push('gone'));
    bus.subscribe(() => void seen.push('kept'));

    await bus.publish('services');
    unsubscribe();
    await bus.publish('services');

    expect(seen).toEqual(['gone', 'kept', 'kept']);
  });

  it('still reaches every listener when one fails, and rejects with that failure', async () => {
    const bus = new ChangeBus();
    const seen: string[] = [];
    bus.subscribe(() => void seen.push('before'));
    bus.subscribe(() => {
      throw new Error('rebuild failed');
    });
    bus.subscribe(async () => {
      await settle();
      throw new Error('async rebuild failed');
    });
    bus.subscribe(() => void seen.push('after'));

    await expect(bus.publish('templates', 'template-1')).rejects.toThrow('rebuild failed');
    expect(seen).toEqual(['before', 'after']);

    // The bus keeps working for the next change.
    seen.length = 0;
    await expect(bus.publish('templates')).rejects.toThrow();
    expect(seen).toEqual(['before', 'after']);
  });

  it('resolves at once with no subscriber', async () => {
    await expect(new ChangeBus().publish('apps', 'app-1')).resolves.toBeUndefined();
  });
});
