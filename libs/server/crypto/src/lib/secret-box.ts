import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets at rest (upstream keys, proxy keys) with AES-256-GCM under `SECRET_KEY`.
 * Ciphertexts are `v1.<iv>.<tag>.<data>` in base64url; the additional data binds each ciphertext to
 * its purpose, so one cannot be swapped for another.
 */
@Injectable()
export class SecretBox {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    if (config.secretKey.length !== 32) throw new Error('SECRET_KEY must be 32 bytes');
    this.key = config.secretKey;
  }

  encrypt(plaintext: string, purpose: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** Throws when the ciphertext was altered, encrypted for another purpose, or under another key. */
  decrypt(ciphertext: string, purpose: string): string {
    const [version, iv, tag, data] = ciphertext.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('Unrecognised ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // GCM's only failure ("Unsupported state or unable to authenticate data"): the tag does not match.
      throw new SecretKeyMismatchError(purpose);
    }
  }
}

/**
 * A stored secret this SECRET_KEY cannot decrypt: almost always a key other than the one the data was
 * written with (a new SECRET_KEY, another SECRET_KEY_FILE, a lost DATA_DIR/secret.key), else an altered
 * ciphertext. Start-up fails closed with this message, not GCM's.
 */
export class SecretKeyMismatchError extends Error {
  constructor(readonly purpose: string) {
    super(
      `A stored secret (${purpose}) cannot be decrypted: SECRET_KEY does not match the key the data was ` +
        'encrypted with. Start Arrbiter with the key it was written with (SECRET_KEY, SECRET_KEY_FILE, or the ' +
        "secret.key in DATA_DIR); a new key cannot read the old one's secrets.",
    );
    this.name = 'SecretKeyMismatchError';
  }
}

/** Hex SHA-256 of a key: how keys are looked up without storing them in the clear. */
export function keyDigest(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A proxy key: 128 random bits as 32 lower-case hex characters, the shape of a Servarr key. */
export function generateProxyKey(): string {
  return randomBytes(16).toString('hex');
}

export const PROXY_KEY_PATTERN = /^[0-9a-f]{32}$/;
