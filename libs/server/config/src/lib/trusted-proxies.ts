import proxyAddr from 'proxy-addr';
import type { AppConfig } from './app-config';

/** Whether the peer at `address`, `hop` steps from this server, is a reverse proxy whose `X-Forwarded-*` counts. */
export type TrustProxyFn = (address: string, hop: number) => boolean;

/**
 * The `TRUST_PROXY` rule, compiled once and used by both sides of the server: Express's
 * `trust proxy` setting (the admin API's client address and protocol) and the proxy route's forwarded
 * protocol. `true` trusts every hop, a number that many hops, a list addresses, CIDRs and proxy-addr's
 * names (`loopback`, `linklocal`, `uniquelocal`); `false` none.
 */
export class TrustedProxies {
  readonly trusts: TrustProxyFn;

  constructor(setting: AppConfig['trustProxy']) {
    if (setting === true) this.trusts = () => true;
    else if (typeof setting === 'number') this.trusts = (_address, hop) => hop < setting;
    else this.trusts = proxyAddr.compile(setting === false ? [] : [...setting]);
  }
}
