// AES-256-GCM for provider keys at rest. The associated data binds a ciphertext to its record,
// so a ciphertext copied onto another row fails to decrypt instead of silently working.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('master key must be exactly 32 bytes');
    this.#key = key;
  }

  encrypt(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return `${VERSION}:${Buffer.concat([iv, tag, body]).toString('base64')}`;
  }

  decrypt(sealed: string, aad: string): string {
    const [version, payload] = sealed.split(':', 2);
    if (version !== VERSION || payload === undefined) throw new Error('unknown ciphertext format');
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** Accepts 32 bytes written as 64 hex characters or as base64 / base64url. */
export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  const b = Buffer.from(t, t.includes('-') || t.includes('_') ? 'base64url' : 'base64');
  if (b.length !== 32) {
    throw new Error('SWITCHYARD_MASTER_KEY must be 32 bytes, written as 64 hex characters or base64');
  }
  return b;
}
