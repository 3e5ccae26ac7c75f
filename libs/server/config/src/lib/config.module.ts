import { DynamicModule, Global, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from './app-config';
import { Clock } from './clock';
import { ExternalUrls } from './external-urls';
import { TrustedProxies } from './trusted-proxies';

/**
 * Says once, at start-up, that `TRUST_PROXY=true` believes every peer's `X-Forwarded-For`: any client
 * then picks the address that logs, sessions and the per-address throttles see.
 */
@Injectable()
export class TrustProxyWarning implements OnApplicationBootstrap {
  private readonly logger = new Logger('Configuration');

  constructor(private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    if (this.config.trustProxy !== true) return;
    this.logger.warn(
      'TRUST_PROXY=true trusts every peer: any client can set X-Forwarded-For and choose the address that ' +
        'logs, sessions and per-address limits see. Name your proxies instead with a CIDR list, e.g. ' +
        'TRUST_PROXY=loopback,10.0.0.0/8 (or a hop count)',
    );
  }
}

/**
 * Says once, at start-up, that `PUBLIC_URL` is unset and what each request's own address then decides
 * (the server works at any address, but an admin should still set it).
 */
@Injectable()
export class PublicUrlNotice implements OnApplicationBootstrap {
  private readonly logger = new Logger('Configuration');

  constructor(private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    if (this.config.publicUrl !== undefined) return;
    this.logger.warn(
      "PUBLIC_URL is unset: each request's own scheme, host and port (X-Forwarded-Proto/-Host/-Prefix only from " +
        'TRUST_PROXY peers) stand for it, so the proxy URLs shown to admins, whether cookies are Secure, and ' +
        'which admin writes count as same-origin follow the address the dashboard is opened at. Set PUBLIC_URL ' +
        '(e.g. https://arrbiter.example.com) to fix them, and for links in notifications',
    );
  }
}

/** Provides the validated `AppConfig` to every module; the config is loaded once, before Nest starts. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, clock: Clock = new Clock()): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clock },
        { provide: TrustedProxies, useValue: new TrustedProxies(config.trustProxy) },
        ExternalUrls,
        TrustProxyWarning,
        PublicUrlNotice,
      ],
      exports: [AppConfig, Clock, TrustedProxies, ExternalUrls],
    };
  }
}
