import { generateProxyKey, keyDigest, SecretBox } from '@arrbiter/server/crypto';

/** The purpose a proxy key is encrypted for (bound into the ciphertext). */
export const PROXY_KEY_PURPOSE = 'proxy-key';

/** What the `proxy` row stores of a key: its digest (lookup) and its ciphertext (connection details). */
export function sealKey(secrets: SecretBox, key: string): { keyDigest: string; keyCiphertext: string } {
  return { keyDigest: keyDigest(key), keyCiphertext: secrets.encrypt(key, PROXY_KEY_PURPOSE) };
}

/** A new proxy key, and what the row stores of it. */
export function sealedKey(secrets: SecretBox): { key: string; keyDigest: string; keyCiphertext: string } {
  const key = generateProxyKey();
  return { key, ...sealKey(secrets, key) };
}
