// The webhook check client against a real hook on loopback: allow, block and mask answers come back
// as the hook said, every request carries a Standard Webhooks signature that the official
// `standardwebhooks` library verifies, and a slow hook, an error status, a malformed answer, a
// refused address or a check without a secret reject (the engine turns a rejection into on_error).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { GuardrailWebhookPayload, WebhookCheck } from '../../src/guardrails/policy.ts';
import { WebhookCheckClient, WebhookCheckError, WebhookSecrets } from '../../src/guardrails/webhook-check.ts';
import { generateSigningSecret, sign } from '../../src/webhooks/signing.ts';
import { type Answer, type Receiver, startReceiver, verifyDelivery } from '../webhooks/receiver.ts';

const PAYLOAD: GuardrailWebhookPayload = {
  stage: 'input',
  request_id: 'req_01jx2mh4zq',
  project_id: 'proj_01jx2m7z9c',
  model: 'openai/gpt-4o-mini',
  text: 'my card is 4111 1111 1111 1111',
  messages: [{ role: 'user', text: 'my card is 4111 1111 1111 1111' }],
};

const json = (status: number, body: unknown, delayMs?: number) => ({
  status,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  ...(delayMs === undefined ? {} : { delayMs }),
});

describe('webhook check client', () => {
  let hook: Receiver;
  let answer: Answer = () => json(200, { action: 'allow' });
  const secret = generateSigningSecret();
  const secrets = new WebhookSecrets();
  const client = new WebhookCheckClient({ denyPrivate: false, sign, secrets });
  const check = (extra: Partial<WebhookCheck> = {}): WebhookCheck => {
    // The default 500 ms is a production bound; a busy test machine's first connection can take
    // longer, so only the timeout test sets a short one.
    const c: WebhookCheck = {
      type: 'webhook',
      stage: 'input',
      action: 'block',
      url: hook.url,
      timeout_ms: 10_000,
      ...extra,
    };
    secrets.bind([c], secret);
    return c;
  };

  before(async () => {
    hook = await startReceiver((req, i) => answer(req, i));
  });
  after(async () => {
    await client.close();
    await hook?.close();
  });

  test('allow, block with a reason, and mask with a replacement come back as answered', async () => {
    answer = () => json(200, { action: 'allow' });
    assert.deepEqual(await client.call(PAYLOAD, check()), { action: 'allow' });

    answer = () => json(200, { action: 'block', reason: 'card numbers are not allowed here' });
    assert.deepEqual(await client.call(PAYLOAD, check()), {
      action: 'block',
      reason: 'card numbers are not allowed here',
    });

    answer = () => json(200, { action: 'mask', replacement: 'my card is [CARD]', reason: null });
    assert.deepEqual(await client.call(PAYLOAD, check()), { action: 'mask', replacement: 'my card is [CARD]' });
  });

  test('each request is the payload, signed so the standardwebhooks library verifies it', async () => {
    answer = () => json(200, { action: 'allow' });
    const before = hook.received.length;
    await client.call(PAYLOAD, check());
    await client.call(PAYLOAD, check());
    const [a, b] = hook.received.slice(before);
    assert.ok(a && b);
    assert.equal(a.headers['content-type'], 'application/json');
    assert.match(String(a.headers['user-agent']), /^Switchyard-Guardrails\//);
    assert.deepEqual(verifyDelivery(secret, a), PAYLOAD);
    assert.notEqual(a.headers['webhook-id'], b.headers['webhook-id'], 'every call is its own message');
    // A receiver holding another secret must not accept it.
    assert.throws(() => verifyDelivery(generateSigningSecret(), a));
  });

  test('a hook slower than timeout_ms rejects with a timeout', async () => {
    answer = () => json(200, { action: 'allow' }, 1500);
    await assert.rejects(client.call(PAYLOAD, check({ timeout_ms: 100 })), (err: Error) => {
      assert.ok(err instanceof WebhookCheckError);
      assert.match(err.message, /no answer from the hook within 100 ms/);
      return true;
    });
  });

  test('an error status, a non-JSON answer and an answer that is not a verdict reject', async () => {
    answer = () => json(500, { action: 'allow' });
    await assert.rejects(client.call(PAYLOAD, check()), /the hook answered 500/);
    answer = () => json(200, 'ok');
    await assert.rejects(client.call(PAYLOAD, check()), /not JSON/);
    answer = () => json(200, { action: 'deny' });
    await assert.rejects(client.call(PAYLOAD, check()), /action must be allow, block or mask; got "deny"/);
    answer = () => json(200, { action: 'mask', replacement: 42 });
    await assert.rejects(client.call(PAYLOAD, check()), /replacement must be a string/);
  });

  test('a closed port rejects as unreachable', async () => {
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close();
    await assert.rejects(client.call(PAYLOAD, check({ url })), /could not be reached/);
  });

  test('the address policy is applied at send time: with private addresses denied, loopback is never dialled', async () => {
    const strict = new WebhookCheckClient({ denyPrivate: true, sign, secrets });
    try {
      const before = hook.received.length;
      await assert.rejects(strict.call(PAYLOAD, check()), /loopback/);
      const metadata = check({ url: 'http://169.254.169.254/latest/meta-data' });
      await assert.rejects(client.call(PAYLOAD, metadata), /link-local/);
      assert.equal(hook.received.length, before);
    } finally {
      await strict.close();
    }
  });

  test('a check no live policy bound a secret to rejects instead of sending unsigned', async () => {
    const before = hook.received.length;
    const unbound: WebhookCheck = { type: 'webhook', stage: 'input', action: 'block', url: hook.url };
    await assert.rejects(client.call(PAYLOAD, unbound), /no signing secret/);
    assert.equal(hook.received.length, before);
  });
});
