import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import * as client from 'openid-client';
import { AccountsService } from '../accounts.service';
import { OidcStrategy } from './oidc.strategy';

/**
 * The OpenID provider, discovered once (`<OIDC_ISSUER>/.well-known/openid-configuration`) and then
 * registered as the `oidc` Passport strategy. Discovery starts with the server but never holds it up:
 * a provider that is down at start-up is asked again at the next sign-in.
 */
@Injectable()
export class OidcClient implements OnApplicationBootstrap {
  private readonly logger = new Logger(OidcClient.name);
  private strategy?: Promise<OidcStrategy>;

  constructor(
    private readonly config: AppConfig,
    private readonly accounts: AccountsService,
  ) {}

  get configured(): boolean {
    return this.config.oidc !== undefined;
  }

  onApplicationBootstrap(): void {
    if (this.configured) void this.ready().catch(() => undefined);
  }

  /** The registered strategy, once the provider has been discovered; rejects while it cannot be. */
  ready(): Promise<OidcStrategy> {
    this.strategy ??= this.discover().catch((error: unknown) => {
      this.strategy = undefined;
      this.logger.warn(
        `The OpenID provider ${this.config.oidc?.issuer} could not be discovered: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw error;
    });
    return this.strategy;
  }

  private async discover(): Promise<OidcStrategy> {
    const oidc = this.config.oidc;
    if (!oidc) throw new Error('Single sign-on is not configured');
    const issuer = new URL(oidc.issuer);
    const configuration = await client.discovery(
      issuer,
      oidc.clientId,
      undefined,
      // A confidential client authenticates with HTTP Basic (the OAuth default every provider accepts);
      // without a secret it is a public client, and PKCE alone binds the code to this browser.
      oidc.clientSecret === undefined ? client.None() : client.ClientSecretBasic(oidc.clientSecret),
      // Plain http only for a loopback issuer (the configuration refuses any other).
      issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests], timeout: 10 } : { timeout: 10 },
    );
    const discovered = configuration.serverMetadata().issuer;
    // Accounts linked before issuers were kept belong to this provider: bound before any sign-in.
    await this.accounts.bindLegacyIdentities(discovered);
    this.logger.log(`Single sign-on through ${discovered}`);
    // loadConfig refuses OIDC_ISSUER without PUBLIC_URL: the redirect URI needs a fixed address.
    const publicUrl = this.config.publicUrl;
    if (publicUrl === undefined) throw new Error('Single sign-on needs PUBLIC_URL');
    return new OidcStrategy(configuration, oidc, this.accounts, publicUrl);
  }
}
