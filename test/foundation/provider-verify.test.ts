// The real key verifier against what a vendor's network can do: nobody listening, a vendor that
// refuses the key, one that is down. Only a refusal is a bad key.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { verifyProviderKey } from '../../src/providers/verify.ts';

describe('verifyProviderKey', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      const status = auth.includes('down') ? 503 : auth.includes('good') ? 200 : 401;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { data: [] } : { error: { message: `status ${status}` } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('accepted, refused, down and unreachable', async () => {
    assert.deepEqual(await verifyProviderKey('openai', { apiKey: 'sk-good', baseUrl: base }), { ok: true });
    const refused = await verifyProviderKey('openai', { apiKey: 'sk-nope', baseUrl: base });
    assert.ok(!refused.ok);
    assert.equal(refused.outcome, 'refused');
    assert.equal(refused.status, 401);
    const down = await verifyProviderKey('openai', { apiKey: 'sk-down', baseUrl: base });
    assert.ok(!down.ok);
    assert.equal(down.outcome, 'unreachable');
    assert.equal(down.status, 503);
    // Port 1 on loopback: connection refused, as with a wrong base_url or a vendor behind a firewall.
    const nobody = await verifyProviderKey('openai', { apiKey: 'sk-good', baseUrl: 'http://127.0.0.1:1/v1' });
    assert.ok(!nobody.ok);
    assert.equal(nobody.outcome, 'unreachable');
    const nxdomain = await verifyProviderKey('openai', {
      apiKey: 'sk-good',
      baseUrl: 'http://no-such-host.invalid/v1',
    });
    assert.ok(!nxdomain.ok);
    assert.equal(nxdomain.outcome, 'unreachable');
  });
});
