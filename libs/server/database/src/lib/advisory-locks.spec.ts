import * as locks from './advisory-locks';

describe('advisory lock keys', () => {
  it('gives every kind of work a key of its own', () => {
    const keys = Object.entries(locks).filter(([name]) => name.endsWith('_LOCK'));
    expect(keys.length).toBeGreaterThanOrEqual(7);
    const byValue = new Map<unknown, string[]>();
    for (const [name, value] of keys) byValue.set(value, [...(byValue.get(value) ?? []), name]);
    const shared = [...byValue.values()].filter((names) => names.length > 1);
    expect(shared).toEqual([]);
    for (const [, value] of keys) expect(Number.isSafeInteger(value)).toBe(true);
  });
});
