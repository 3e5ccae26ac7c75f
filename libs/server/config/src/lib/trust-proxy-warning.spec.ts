import { Logger } from '@nestjs/common';
import type { AppConfig } from './app-config';
import { TrustProxyWarning } from './config.module';

describe(TrustProxyWarning.name, () => {
  afterEach(() => jest.restoreAllMocks());

  it('warns once at start-up that TRUST_PROXY=true trusts every peer, recommending a CIDR list', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    new TrustProxyWarning({ trustProxy: true } as AppConfig).onApplicationBootstrap();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/^TRUST_PROXY=true trusts every peer: .*CIDR list/);
  });

  it('says nothing when the proxies are named (or none is trusted)', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    for (const trustProxy of [false, 1, ['loopback', '10.0.0.0/8']]) {
      new TrustProxyWarning({ trustProxy } as AppConfig).onApplicationBootstrap();
    }
    expect(warn).not.toHaveBeenCalled();
  });
});
