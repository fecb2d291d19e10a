// Issue 38 item 8: a provider base_url had no address policy, and a failed key check echoed the body
// of whatever answered there. base_url now follows the webhooks' address rules (link-local and
// metadata always refused, private and loopback when SWITCHYARD_DENY_PRIVATE_ADDRESSES is on), and a
// failed check quotes a vendor-shaped error message only, never an arbitrary body.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { verifyProviderKey } from '../../src/providers/verify.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

type Answer = { status: number; type: string; body: string };

async function addProvider(gw: Gateway, baseUrl: string, verify = true) {
  const res = await fetch(`${gw.url}/manage/v1/providers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ vendor: 'openai', api_key: 'sk-test-0000000000000000', base_url: baseUrl, verify }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code?: string; message?: string } } };
}

const ALWAYS_REFUSED = [
  'http://169.254.169.254/v1',
  'http://[::ffff:0:169.254.169.254]/v1',
  'http://[fd00:ec2::254]/v1',
  'http://metadata.google.internal/v1',
  'http://0.0.0.0:8080/v1',
];

describe('provider base_url address policy', () => {
  let gw: Gateway;
  let strictGw: Gateway;
  let target: Server;
  let answer: Answer = { status: 401, type: 'text/plain', body: '' };
  let targetUrl = '';
  before(async () => {
    target = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/v1`;
    // The real verifier: the check dials the base_url.
    gw = await startGateway({ keyVerifier: (vendor, credential) => verifyProviderKey(vendor, credential) });
    strictGw = await startGateway({ config: { webhookDenyPrivate: true } });
  });
  after(async () => {
    await gw?.close();
    await strictGw?.close();
    await new Promise((r) => target.close(r));
  });

  test('link-local, metadata and non-unicast base URLs are refused with 400, unchecked or not', async () => {
    for (const url of ALWAYS_REFUSED) {
      for (const verify of [true, false]) {
        const r = await addProvider(gw, url, verify);
        assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error?.code, 'invalid_base_url', url);
      }
    }
  });

  test('private and loopback base URLs are refused when private destinations are denied', async () => {
    for (const url of ['http://10.1.2.3/v1', 'http://127.0.0.1:9/v1', 'http://localhost:9/v1', 'http://[::1]:9/v1']) {
      const r = await addProvider(strictGw, url, false);
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error?.code, 'invalid_base_url');
    }
    // Allowed by default (a local vendor emulation, a self-hosted model server).
    assert.equal((await addProvider(gw, 'http://10.1.2.3/v1', false)).status, 201);
  });

  test("a failed key check does not echo the target's body, only a vendor's error message", async () => {
    const secret = 'INTERNAL-ADMIN-PAGE root:x:0:0 token=abc123';
    answer = { status: 401, type: 'text/plain', body: secret };
    let r = await addProvider(gw, targetUrl);
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.doesNotMatch(r.body.error?.message ?? '', /INTERNAL|abc123/);
    assert.match(r.body.error?.message ?? '', /upstream status 401/);

    answer = { status: 500, type: 'application/json', body: JSON.stringify({ debug: secret }) };
    r = await addProvider(gw, targetUrl);
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.doesNotMatch(r.body.error?.message ?? '', /INTERNAL|abc123/);

    const vendorError = { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } };
    answer = { status: 401, type: 'application/json', body: JSON.stringify(vendorError) };
    r = await addProvider(gw, targetUrl);
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.match(r.body.error?.message ?? '', /Incorrect API key provided/);
  });
});
