import { AppConfig } from '@arrbiter/server/config';
import { generateProxyKey, keyDigest, PROXY_KEY_PATTERN, SecretBox, SecretKeyMismatchError } from './secret-box';

function box(fill = 1): SecretBox {
  return new SecretBox({ secretKey: Buffer.alloc(32, fill) } as unknown as AppConfig);
}

describe(SecretBox.name, () => {
  it('round-trips a secret and never shows it in the ciphertext', () => {
    const ciphertext = box().encrypt('0123456789abcdef0123456789abcdef', 'service-key');
    expect(ciphertext).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(ciphertext).not.toContain('0123456789abcdef');
    expect(box().decrypt(ciphertext, 'service-key')).toBe('0123456789abcdef0123456789abcdef');
  });

  it('uses a fresh IV each time', () => {
    expect(box().encrypt('same', 'p')).not.toBe(box().encrypt('same', 'p'));
  });

  it('refuses another key, another purpose, or a tampered ciphertext', () => {
    const ciphertext = box().encrypt('secret', 'service-key');
    expect(() => box(2).decrypt(ciphertext, 'service-key')).toThrow();
    expect(() => box().decrypt(ciphertext, 'proxy-key')).toThrow();
    const parts = ciphertext.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box().decrypt(parts.join('.'), 'service-key')).toThrow();
    expect(() => box().decrypt('garbage', 'service-key')).toThrow('Unrecognised ciphertext');
  });

  it('says that SECRET_KEY does not match the key the data was encrypted with', () => {
    const ciphertext = box().encrypt('secret', 'service-key');
    let error: unknown;
    try {
      box(2).decrypt(ciphertext, 'service-key');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SecretKeyMismatchError);
    expect((error as Error).message).toContain('SECRET_KEY does not match the key the data was encrypted with');
    expect((error as Error).message).not.toContain('Unsupported state');
  });
});

describe('proxy keys', () => {
  it('are 32 lower-case hex characters and unique', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateProxyKey));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(PROXY_KEY_PATTERN);
  });

  it('are looked up by their SHA-256 digest', () => {
    const key = generateProxyKey();
    expect(keyDigest(key)).toBe(keyDigest(key));
    expect(keyDigest(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyDigest(key)).not.toBe(keyDigest(generateProxyKey()));
  });
});
