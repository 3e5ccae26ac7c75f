import { ArrbiterDataSource } from './arrbiter-data-source';

/**
 * An ArrbiterDataSource on TypeORM's PostgreSQL driver, never connected: the driver's `disconnect`
 * (what `DataSource.destroy` closes the pool with) is a fake that records the order of events.
 */
function dataSource(events: string[], disconnect: () => Promise<void>) {
  const afterDestroy = async () => {
    events.push('after destroy');
  };
  const ds = new ArrbiterDataSource({ type: 'postgres' }, afterDestroy);
  ds.driver.disconnect = async () => {
    await disconnect();
    events.push('pool closed');
  };
  return ds;
}

/** Marks it initialized, as `initialize()` does once connected. */
function initialized(ds: ArrbiterDataSource): ArrbiterDataSource {
  Object.assign(ds, { isInitialized: true });
  return ds;
}

/** A promise the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(ArrbiterDataSource.name, () => {
  it('runs the registered drains one after another, in order, before closing the pool', async () => {
    const events: string[] = [];
    const ds = initialized(dataSource(events, async () => undefined));
    const first = deferred();
    const second = deferred();
    ds.beforeDestroy(async () => {
      events.push('first drain');
      await first.promise;
      events.push('first drained');
    });
    ds.beforeDestroy(async () => {
      events.push('second drain');
      await second.promise;
      events.push('second drained');
    });

    const destroyed = ds.destroy();
    await settle();
    expect(events).toEqual(['first drain']);

    first.resolve();
    await settle();
    expect(events).toEqual(['first drain', 'first drained', 'second drain']);

    second.resolve();
    await destroyed;
    expect(events).toEqual([
      'first drain',
      'first drained',
      'second drain',
      'second drained',
      'pool closed',
      'after destroy',
    ]);
  });

  it('still closes the pool and what it runs on when a drain fails, and reports that failure', async () => {
    const events: string[] = [];
    const ds = initialized(dataSource(events, async () => undefined));
    ds.beforeDestroy(async () => {
      throw new Error('drain failed');
    });

    await expect(ds.destroy()).rejects.toThrow('drain failed');

    expect(events).toEqual(['pool closed', 'after destroy']);
  });

  it('runs no drain when it never connected (nothing to write with)', async () => {
    const events: string[] = [];
    const ds = dataSource(events, async () => undefined);
    ds.beforeDestroy(async () => void events.push('drain'));

    await ds.destroy();

    expect(events).toEqual(['after destroy']);
  });

  it('closes the pool first, then what it runs on', async () => {
    const events: string[] = [];
    const ds = initialized(dataSource(events, async () => undefined));

    await ds.destroy();

    expect(events).toEqual(['pool closed', 'after destroy']);
    expect(ds.isInitialized).toBe(false);
  });

  it('still stops what it runs on when closing the pool fails, and reports that failure', async () => {
    const events: string[] = [];
    const ds = initialized(
      dataSource(events, async () => {
        events.push('closing the pool');
        throw new Error('pool end failed');
      }),
    );

    await expect(ds.destroy()).rejects.toThrow('pool end failed');

    expect(events).toEqual(['closing the pool', 'after destroy']);
  });

  it('stops what it runs on when it never connected (a failed initialize), instead of throwing', async () => {
    const events: string[] = [];
    const ds = dataSource(events, async () => undefined);

    // TypeORM's own destroy would throw CannotExecuteNotConnectedError here.
    await expect(ds.destroy()).resolves.toBeUndefined();

    expect(events).toEqual(['after destroy']);
  });

  it('has nothing to stop by default', async () => {
    const ds = initialized(new ArrbiterDataSource({ type: 'postgres' }));
    ds.driver.disconnect = async () => undefined;

    await expect(ds.destroy()).resolves.toBeUndefined();
    // A second destroy (Nest's shutdown after a test's own destroy) is harmless too.
    await expect(ds.destroy()).resolves.toBeUndefined();
  });
});
