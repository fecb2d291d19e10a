// Standard Webhooks signing (https://www.standardwebhooks.com), so receivers can verify deliveries
// with any of the public `standardwebhooks` / Svix libraries instead of code of ours.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export interface WebhookMessage {
  /** The message id: the same on every retry and replay, so receivers can deduplicate. */
  readonly id: string;
  /** Unix seconds of this attempt; receivers reject stale ones, so it is fresh per attempt. */
  readonly timestamp: number;
  /** The exact bytes sent: the signature covers the serialized body, not the object. */
  readonly body: string;
}

export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key of a secret; throws on one that is not `whsec_` + base64 of at least one byte. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`signing secret must start with ${SECRET_PREFIX}`);
  const encoded = secret.slice(SECRET_PREFIX.length);
  // Buffer.from(..., 'base64') silently skips junk characters, which would sign with a key the
  // receiver's library (strict base64) never derives.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new Error('signing secret is not valid base64 after its prefix');
  }
  return Buffer.from(encoded, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for one secret. */
export function signatureFor(message: WebhookMessage, secret: string): string {
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0) {
    throw new Error('webhook timestamp must be whole non-negative seconds');
  }
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${message.id}.${message.timestamp}.${message.body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * Headers for one delivery attempt. `secrets` lists the current secret first, then (during the
 * overlap after a rotation) the previous one, so receivers still holding the old secret keep
 * verifying while they switch.
 */
export function sign(message: WebhookMessage, secrets: readonly string[]): WebhookSignatureHeaders {
  if (secrets.length === 0) throw new Error('at least one signing secret is required');
  if (message.id.length === 0) throw new Error('webhook message id is required');
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': secrets.map((s) => signatureFor(message, s)).join(' '),
  };
}
