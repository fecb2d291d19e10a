import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { generateSigningSecret, SECRET_PREFIX, secretKey, sign, signatureFor } from './signing.ts';

const now = (): number => Math.floor(Date.now() / 1000);
const body = JSON.stringify({
  type: 'routing_config.updated',
  timestamp: '2025-01-01T00:00:00Z',
  data: { id: 'rc_1' },
});

test('generated secrets are whsec_ + base64 of 32 random bytes, all distinct', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const s = generateSigningSecret();
    assert.ok(s.startsWith(SECRET_PREFIX));
    assert.equal(secretKey(s).length, 32);
    seen.add(s);
  }
  assert.equal(seen.size, 50);
});

test('headers carry id, timestamp and one v1 signature per secret', () => {
  const a = generateSigningSecret();
  const b = generateSigningSecret();
  const h = sign({ id: 'msg_1', timestamp: 1700000000, body }, [a, b]);
  assert.equal(h['webhook-id'], 'msg_1');
  assert.equal(h['webhook-timestamp'], '1700000000');
  const parts = h['webhook-signature'].split(' ');
  assert.equal(parts.length, 2);
  for (const p of parts) assert.match(p, /^v1,[A-Za-z0-9+/]{43}=$/);
});

test('matches the Standard Webhooks reference vector', () => {
  // The test vector published in the Standard Webhooks spec repository's libraries.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const sig = signatureFor(
    { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' },
    secret,
  );
  assert.equal(sig, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('equals the signature the official library computes for the same message', () => {
  const secret = generateSigningSecret();
  const ts = now();
  const ours = signatureFor({ id: 'msg_x', timestamp: ts, body }, secret);
  assert.equal(ours, new Webhook(secret).sign('msg_x', new Date(ts * 1000), body));
});

test('every signature verifies with the official standardwebhooks library', () => {
  for (let i = 0; i < 20; i++) {
    const secret = generateSigningSecret();
    const msgBody = JSON.stringify({ type: 'webhook.test', n: i, text: 'ünïcödé ✓' });
    const headers = sign({ id: `msg_${i}`, timestamp: now(), body: msgBody }, [secret]);
    assert.deepEqual(new Webhook(secret).verify(msgBody, { ...headers }), JSON.parse(msgBody));
  }
});

test('during a rotation both the new and the old secret verify', () => {
  const next = generateSigningSecret();
  const old = generateSigningSecret();
  const headers = { ...sign({ id: 'msg_rot', timestamp: now(), body }, [next, old]) };
  assert.ok(new Webhook(next).verify(body, headers));
  assert.ok(new Webhook(old).verify(body, headers));
});

test('a tampered body, id or timestamp, or a wrong secret fails verification', () => {
  const secret = generateSigningSecret();
  const ts = now();
  const headers = { ...sign({ id: 'msg_t', timestamp: ts, body }, [secret]) };
  assert.throws(() => new Webhook(secret).verify(body.replace('rc_1', 'rc_2'), headers));
  assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_u' }));
  assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(ts - 1) }));
  assert.throws(() => new Webhook(generateSigningSecret()).verify(body, headers));
});

test('refuses malformed secrets and inputs instead of signing with a surprising key', () => {
  const msg = { id: 'msg_1', timestamp: 1, body };
  assert.throws(() => sign(msg, []), /at least one/);
  assert.throws(() => sign(msg, ['abc']), /whsec_/);
  assert.throws(() => sign(msg, ['whsec_']), /base64/);
  assert.throws(() => sign(msg, ['whsec_not base64!']), /base64/);
  assert.throws(() => sign({ ...msg, timestamp: 1.5 }, [generateSigningSecret()]), /seconds/);
  assert.throws(() => sign({ ...msg, id: '' }, [generateSigningSecret()]), /id/);
});
