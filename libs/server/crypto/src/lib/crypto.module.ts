import { Global, Module } from '@nestjs/common';
import { SecretBox } from './secret-box';

/** One SecretBox for the process (encryption at rest under SECRET_KEY). */
@Global()
@Module({ providers: [SecretBox], exports: [SecretBox] })
export class CryptoModule {}
