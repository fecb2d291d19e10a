// Gateway API keys: `sy-<43 base64url chars>` (256 bits). Only the SHA-256 hash is stored; a short
// prefix is kept for display so users can tell keys apart.
import { createHash, randomBytes } from 'node:crypto';

export function generateApiKey(): string {
  return `sy-${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

export function displayPrefix(plaintext: string): string {
  return plaintext.slice(0, 10);
}
