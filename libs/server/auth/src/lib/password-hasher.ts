import { Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

@Injectable()
export class PasswordHasher {
  /** Hashed once so that an unknown username costs as much as a wrong password. */
  private dummyHash?: Promise<string>;

  hash(password: string): Promise<string> {
    return argon2.hash(password, OPTIONS);
  }

  async verify(hash: string | undefined, password: string): Promise<boolean> {
    if (hash === undefined) {
      this.dummyHash ??= this.hash('arrbiter-timing-equaliser');
      await argon2.verify(await this.dummyHash, password);
      return false;
    }
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  }
}
