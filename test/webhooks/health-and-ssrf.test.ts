// provider.health_changed from a credential's circuit breaker, and the address rules at delivery
// time: a hostname that resolves to a refused address is never dialled, and an endpoint whose
// literal address a tightened policy now refuses fails its delivery without a connection.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebhookSender } from '../../src/webhooks/sender.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, verifyDelivery, waitFor } from './receiver.ts';

type Json = Record<string, unknown>;

describe('provider.health_changed', () => {
  let gw: Gateway;
  let rx: Receiver;
  before(async () => {
    gw = await startGateway();
    rx = await startReceiver();
  });
  after(async () => {
    await gw.close();
    await rx.close();
  });

  test('a credential whose endpoint refuses connections cools down, and receivers hear of it', async () => {
    const ep = await call(gw, 'POST', '/manage/v1/webhooks/endpoints', {
      url: rx.url,
      event_types: ['provider.health_changed'],
    });
    const secret = (ep.body as Json).signing_secret as string;
    // Port 9 (discard) is closed on loopback: every call fails with a refused connection.
    const prov = await call(gw, 'POST', '/manage/v1/providers', {
      vendor: 'openai',
      name: 'dead-end',
      api_key: 'sk-dead',
      base_url: 'http://127.0.0.1:9/v1',
    });
    assert.equal(prov.status, 201, prov.text);
    for (let i = 0; i < 3 && rx.received.length === 0; i++) {
      const res = await call(gw, 'POST', '/alpha/v1/chat/completions', {
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.ok(res.status >= 500, res.text);
    }
    const [hit] = await waitFor('health event', () => (rx.received.length > 0 ? rx.received : undefined));
    const ev = verifyDelivery(secret, hit);
    assert.equal(ev.type, 'provider.health_changed');
    assert.equal(ev.data.id, (prov.body as Json).id);
    assert.deepEqual([ev.data.previous, ev.data.current], ['healthy', 'cooling_down']);
    assert.ok(Date.parse(String(ev.data.cooldown_until)) > Date.now());
    // One event per incident, not one per failed call.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.received.length, 1);
  });
});

describe('webhook MCP tools', () => {
  test('the eleven tools named in SPEC are listed and work', async () => {
    const gw = await startGateway();
    const rx = await startReceiver();
    const client = new Client({ name: 'webhooks-test', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
        }),
      );
      const names = new Set((await client.listTools()).tools.map((t) => t.name));
      for (const name of [
        'list_webhook_endpoints',
        'get_webhook_endpoint',
        'create_webhook_endpoint',
        'update_webhook_endpoint',
        'delete_webhook_endpoint',
        'rotate_webhook_secret',
        'send_webhook_test',
        'list_webhook_deliveries',
        'get_webhook_delivery',
        'replay_webhook_delivery',
        'list_webhook_event_types',
      ]) {
        assert.ok(names.has(name), name);
      }
      const created = await client.callTool({ name: 'create_webhook_endpoint', arguments: { url: rx.url } });
      assert.ok(!created.isError, JSON.stringify(created));
      const ep = created.structuredContent as Json;
      const sent = await client.callTool({ name: 'send_webhook_test', arguments: { endpoint_id: ep.id } });
      assert.equal((sent.structuredContent as Json).status, 'delivered');
      const refused = await client.callTool({
        name: 'create_webhook_endpoint',
        arguments: { url: 'http://169.254.169.254/' },
      });
      assert.ok(refused.isError);
    } finally {
      await client.close();
      await gw.close();
      await rx.close();
    }
  });
});

describe('address rules at delivery time', () => {
  test('with private destinations denied, a hostname resolving to loopback is not dialled', async () => {
    const rx = await startReceiver();
    const sender = new WebhookSender({ denyPrivate: true, timeoutMs: 2000 });
    try {
      const port = new URL(rx.url).port;
      const res = await sender.post(`http://localhost:${port}/hook`, {}, '{}');
      assert.equal(res.status, null);
      assert.match(String(res.error), /loopback/);
      assert.equal(rx.received.length, 0);
      // The same sender with the rule off reaches it (the receiver is there).
      const open = new WebhookSender({ denyPrivate: false, timeoutMs: 2000 });
      assert.equal((await open.post(`http://localhost:${port}/hook`, {}, '{}')).status, 200);
      await open.close();
    } finally {
      await sender.close();
      await rx.close();
    }
  });

  test('a literal address refused by a tightened policy fails the delivery without a connection', async () => {
    const rx = await startReceiver();
    let gw = await startGateway();
    try {
      const ep = await call(gw, 'POST', '/manage/v1/webhooks/endpoints', { url: rx.url });
      const epId = (ep.body as Json).id as string;
      const sent = await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${epId}/test`, {});
      assert.equal((sent.body as Json).status, 'delivered');
      await gw.close({ keepData: true });
      gw = await startGateway({ dataDir: gw.dataDir, config: { webhookDenyPrivate: true } });
      const created = await call(gw, 'POST', '/manage/v1/webhooks/endpoints', { url: rx.url });
      assert.equal(created.status, 400);
      assert.match(created.text, /loopback/);
      const again = await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${epId}/test`, {});
      const d = again.body as Json;
      assert.equal(d.status, 'failed');
      assert.match(String(d.last_error), /loopback/);
      assert.equal(rx.received.length, 1);
    } finally {
      await gw.close();
      rmSync(gw.dataDir, { recursive: true, force: true });
      await rx.close();
    }
  });
});
