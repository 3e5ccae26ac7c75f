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

describe(ArrbiterDataSource.name, () => {
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
