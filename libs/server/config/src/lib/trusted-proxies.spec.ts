import { TrustedProxies } from './trusted-proxies';

describe(TrustedProxies.name, () => {
  it('trusts nobody by default, everybody with true, and the first hops with a number', () => {
    expect(new TrustedProxies(false).trusts('127.0.0.1', 0)).toBe(false);
    expect(new TrustedProxies(true).trusts('203.0.113.9', 3)).toBe(true);
    const two = new TrustedProxies(2);
    expect([two.trusts('203.0.113.9', 0), two.trusts('203.0.113.9', 1), two.trusts('203.0.113.9', 2)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('trusts listed addresses, CIDRs and named ranges only', () => {
    const trusted = new TrustedProxies(['loopback', '10.0.0.0/8', '192.0.2.7']);
    expect(['127.0.0.1', '::1', '10.1.2.3', '192.0.2.7'].map((a) => trusted.trusts(a, 0))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['192.0.2.8', '203.0.113.9'].map((a) => trusted.trusts(a, 0))).toEqual([false, false]);
  });

  it('refuses what is not an address', () => {
    expect(() => new TrustedProxies(['not-an-address'])).toThrow(/invalid IP address/);
  });
});
