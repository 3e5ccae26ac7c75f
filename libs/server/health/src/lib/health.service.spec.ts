import type { DataSource } from 'typeorm';
import { HealthService } from './health.service';

/** A DataSource whose `SELECT 1` answers as told; records what it was asked. */
function dataSource(isInitialized: boolean, answer: () => Promise<unknown>) {
  const queries: string[] = [];
  const fake = {
    isInitialized,
    query: (sql: string) => {
      queries.push(sql);
      return answer();
    },
  } as unknown as DataSource;
  return { fake, queries };
}

describe(HealthService.name, () => {
  afterEach(() => jest.useRealTimers());

  it('answers true when SELECT 1 comes back', async () => {
    const db = dataSource(true, async () => [{ '?column?': 1 }]);
    await expect(new HealthService(db.fake).databaseAnswers()).resolves.toBe(true);
    expect(db.queries).toEqual(['SELECT 1']);
  });

  it('answers false when the query fails, without throwing', async () => {
    const db = dataSource(true, async () => {
      throw new Error('Connection terminated unexpectedly');
    });
    await expect(new HealthService(db.fake).databaseAnswers()).resolves.toBe(false);
  });

  it('answers false without a query once the DataSource is destroyed (or was never initialized)', async () => {
    const db = dataSource(false, async () => []);
    await expect(new HealthService(db.fake).databaseAnswers()).resolves.toBe(false);
    expect(db.queries).toEqual([]);
  });

  it('answers false when the query does not come back within two seconds', async () => {
    jest.useFakeTimers();
    const db = dataSource(true, () => new Promise(() => undefined)); // never answers
    let answer: boolean | undefined;
    void new HealthService(db.fake).databaseAnswers().then((a) => (answer = a));

    await jest.advanceTimersByTimeAsync(1_999);
    expect(answer).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(answer).toBe(false);
  });

  it('leaves no timer behind once the database answered', async () => {
    jest.useFakeTimers();
    const db = dataSource(true, async () => []);
    await expect(new HealthService(db.fake).databaseAnswers()).resolves.toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });
});
