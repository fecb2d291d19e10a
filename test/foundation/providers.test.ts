// Provider credentials over HTTP: vendors and aliases, validation, encryption at rest, key never
// returned or logged, verified rotation (422 keeps the old key), soft delete, health windows.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { VENDORS } from '../../src/providers/types.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

interface Provider {
  id: string;
  vendor: string;
  name: string;
  base_url: string | null;
  weight: number;
  status: string;
  health: { state: string; p50_latency_ms: number | null; last_check_at: string; cooldown_until: string | null };
  created_at: string;
}

const SECRET = 'sk-live-SECRET-abcdef1234567890';
const AWS = 'AKIAIOSFODNN7EXAMPLE::wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY::us-east-1';

describe('providers', () => {
  let gw: Gateway;
  const logLines: string[] = [];
  const responses: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await call(gw, method, path, body);
    responses.push(r.text);
    return r;
  };

  before(async () => {
    gw = await startGateway({ logDestination: sink });
  });
  after(async () => gw?.close());

  test('add every vendor and alias; aliases are echoed as sent', async () => {
    const names = [...VENDORS, ...VENDORS.map((_, i) => `vendor_${i + 1}`)];
    for (const vendor of names) {
      const azure = vendor === 'azure-openai' || vendor === 'vendor_4';
      const bedrock = vendor === 'bedrock' || vendor === 'vendor_5';
      const r = await api('POST', '/manage/v1/providers', {
        vendor,
        name: `${vendor} creds`,
        api_key: bedrock ? AWS : SECRET,
        ...(azure ? { base_url: 'https://my-res.openai.azure.com/' } : {}),
      });
      assert.equal(r.status, 201, `${vendor}: ${r.text}`);
      const p = r.body as Provider;
      assert.equal(p.vendor, vendor);
      assert.equal(p.status, 'active');
      assert.equal(p.health.state, 'unknown', 'no call has gone through it yet');
      assert.equal(p.weight, 1);
      assert.ok(p.created_at);
      if (azure) assert.equal(p.base_url, 'https://my-res.openai.azure.com');
    }
    const list = (await api('GET', '/manage/v1/providers?limit=100')).body as { data: Provider[] };
    assert.equal(list.data.length, 14);
  });

  test('a new key is verified with the vendor: 422 stores nothing; verify false skips the check', async () => {
    const before = ((await api('GET', '/manage/v1/providers?limit=200')).body as { data: Provider[] }).data.length;
    const bad = await api('POST', '/manage/v1/providers', { vendor: 'openai', api_key: 'sk-bad-key-0000000000' });
    assert.equal(bad.status, 422, bad.text);
    const err = (bad.body as { error: { code: string; param: string; message: string } }).error;
    assert.equal(err.code, 'key_verification_failed');
    assert.equal(err.param, 'api_key');
    assert.ok(!bad.text.includes('sk-bad-key-0000000000'));
    const after = ((await api('GET', '/manage/v1/providers?limit=200')).body as { data: Provider[] }).data.length;
    assert.equal(after, before, 'a refused key is not stored');
    const unchecked = await api('POST', '/manage/v1/providers', {
      vendor: 'openai',
      api_key: 'sk-bad-key-0000000000',
      verify: false,
      weight: 0,
    });
    assert.equal(unchecked.status, 201, unchecked.text);
    assert.equal((unchecked.body as Provider).weight, 0);
    const reweighted = await api('PATCH', `/manage/v1/providers/${(unchecked.body as Provider).id}`, { weight: 5 });
    assert.equal((reweighted.body as Provider).weight, 5);
    assert.equal(
      (await api('POST', '/manage/v1/providers', { vendor: 'openai', api_key: SECRET, weight: -1 })).status,
      400,
    );
    assert.equal((await api('DELETE', `/manage/v1/providers/${(unchecked.body as Provider).id}`)).status, 200);
  });

  test('a vendor that cannot be reached is not a refused key: 502 provider_unreachable, then verify false', async () => {
    const before = ((await api('GET', '/manage/v1/providers?limit=200')).body as { data: Provider[] }).data.length;
    const down = await api('POST', '/manage/v1/providers', { vendor: 'openai', api_key: 'sk-unreachable-000000' });
    assert.equal(down.status, 502, down.text);
    const err = (down.body as { error: { code: string; param: string; message: string } }).error;
    assert.equal(err.code, 'provider_unreachable');
    assert.equal(err.param, 'base_url');
    assert.match(err.message, /could not be reached.*not checked.*"verify": false/);
    assert.doesNotMatch(err.message, /rejected/);
    const after = ((await api('GET', '/manage/v1/providers?limit=200')).body as { data: Provider[] }).data.length;
    assert.equal(after, before, 'nothing is stored');
    const stored = await api('POST', '/manage/v1/providers', {
      vendor: 'openai',
      api_key: 'sk-unreachable-000000',
      verify: false,
    });
    assert.equal(stored.status, 201, stored.text);
    const id = (stored.body as Provider).id;
    const rotate = await api('PATCH', `/manage/v1/providers/${id}`, { api_key: 'sk-unreachable-111111' });
    assert.equal(rotate.status, 502, rotate.text);
    assert.match(rotate.text, /the current key stays in use/);
    assert.equal((await api('DELETE', `/manage/v1/providers/${id}`)).status, 200);
  });

  test('the list is paginated like every other list', async () => {
    const first = (await api('GET', '/manage/v1/providers?limit=3')).body as {
      data: Provider[];
      next_cursor: string | null;
      has_more: boolean;
    };
    assert.equal(first.data.length, 3);
    assert.equal(first.has_more, true);
    assert.ok(first.next_cursor);
    const second = (await api('GET', `/manage/v1/providers?limit=3&cursor=${first.next_cursor}`)).body as {
      data: Provider[];
    };
    assert.ok(second.data.length > 0);
    assert.ok(second.data[0].id > first.data[2].id, 'the next page continues after the last id');
    assert.equal((await api('GET', '/manage/v1/providers?cursor=nonsense')).status, 400);
  });

  test('validation: azure needs base_url, URLs must be http(s), bedrock key format', async () => {
    const cases: Array<[unknown, string]> = [
      [{ vendor: 'azure-openai', api_key: SECRET }, 'base_url'],
      [{ vendor: 'openai', api_key: SECRET, base_url: 'ftp://x' }, 'base_url'],
      [{ vendor: 'openai', api_key: SECRET, base_url: 'not a url' }, 'base_url'],
      [{ vendor: 'bedrock', api_key: 'just-a-key' }, 'api_key'],
      [{ vendor: 'bedrock', api_key: 'AKIAIOSFODNN7EXAMPLE::::us-east-1' }, 'api_key'],
      [{ vendor: 'bedrock', api_key: 'akia-lower::secret::us-east-1' }, 'api_key'],
      [{ vendor: 'vendor_5', api_key: 'AKIAIOSFODNN7EXAMPLE::wJalrXUtnFEMI/K7MDENG/bPxRfiCY::nowhere' }, 'api_key'],
      [{ vendor: 'openai-ish', api_key: SECRET }, 'vendor'],
      [{ vendor: 'openai' }, 'api_key'],
      [{ vendor: 'openai', api_key: SECRET, extra: 1 }, 'extra'],
    ];
    for (const [body, param] of cases) {
      const r = await api('POST', '/manage/v1/providers', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal((r.body as { error: { param: string } }).error.param, param, r.text);
    }
    const withToken = await api('POST', '/manage/v1/providers', {
      vendor: 'bedrock',
      api_key: `${AWS}::SESSIONTOKEN123`,
    });
    assert.equal(withToken.status, 201);
  });

  test('the key is encrypted at rest and decrypted in the credential cache', async () => {
    const p = (await api('POST', '/manage/v1/providers', { vendor: 'together', api_key: 'tg-key-one-123456' }))
      .body as Provider;
    const row = await gw.app.svc.stores.credentials.get(gw.app.svc.bootstrap.orgId, p.id);
    assert.ok(row);
    assert.ok(!row.keyCiphertext.includes('tg-key-one'));
    assert.match(row.keyCiphertext, /^v1:/);
    const resolved = gw.app.svc.credentials
      .forVendor(gw.app.svc.bootstrap.orgId, 'together')
      .find((c) => c.id === p.id);
    assert.equal(resolved?.credential.apiKey, 'tg-key-one-123456');
    assert.equal(gw.app.svc.credentials.get(gw.app.svc.bootstrap.orgId, p.id)?.vendor, 'together');
    assert.equal(gw.app.svc.credentials.get('org_other', p.id), undefined);
  });

  test('rotation: a bad key gives 422 and the old key stays; a good key swaps atomically', async () => {
    const orgId = gw.app.svc.bootstrap.orgId;
    const p = (await api('POST', '/manage/v1/providers', { vendor: 'fireworks', api_key: 'fw-old-key-123456' }))
      .body as Provider;
    const held = gw.app.svc.credentials.get(orgId, p.id)?.credential; // an "in-flight request" holds this
    const bad = await api('PATCH', `/manage/v1/providers/${p.id}`, { api_key: 'fw-bad-key-999999' });
    assert.equal(bad.status, 422);
    assert.equal((bad.body as { error: { code: string } }).error.code, 'key_verification_failed');
    assert.ok(!bad.text.includes('fw-bad-key-999999'));
    assert.equal(gw.app.svc.credentials.get(orgId, p.id)?.credential.apiKey, 'fw-old-key-123456');

    const good = await api('PATCH', `/manage/v1/providers/${p.id}`, { api_key: 'fw-new-key-123456' });
    assert.equal(good.status, 200, good.text);
    assert.equal(gw.app.svc.credentials.get(orgId, p.id)?.credential.apiKey, 'fw-new-key-123456');
    assert.equal(held?.apiKey, 'fw-old-key-123456', 'the object an in-flight request holds is not mutated');
    const renamed = await api('PATCH', `/manage/v1/providers/${p.id}`, { name: 'renamed' });
    assert.equal((renamed.body as Provider).name, 'renamed');
    assert.equal(gw.app.svc.credentials.get(orgId, p.id)?.credential.apiKey, 'fw-new-key-123456');
  });

  test('get, health windows, delete', async () => {
    const p = (await api('POST', '/manage/v1/providers', { vendor: 'google', api_key: 'AIza-google-123456' }))
      .body as Provider;
    assert.equal((await api('GET', `/manage/v1/providers/${p.id}`)).status, 200);
    const health = await api('GET', `/manage/v1/providers/${p.id}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, {
      provider_id: p.id,
      windows: ['5m', '1h', '24h'].map((window) => ({
        window,
        requests: 0,
        success_rate: null,
        p50_latency_ms: null,
        p95_latency_ms: null,
        p99_latency_ms: null,
      })),
    });
    const del = await api('DELETE', `/manage/v1/providers/${p.id}`);
    assert.equal(del.status, 200);
    assert.equal((await api('GET', `/manage/v1/providers/${p.id}`)).status, 404);
    assert.equal((await api('DELETE', `/manage/v1/providers/${p.id}`)).status, 404);
    assert.equal(gw.app.svc.credentials.get(gw.app.svc.bootstrap.orgId, p.id), undefined);
  });

  test('no api_key in any response body or log line', async () => {
    // Even a careless log call with the secret in a known field is redacted.
    gw.app.log.info({ body: { api_key: SECRET }, req: { headers: { authorization: `Bearer ${SECRET}` } } }, 'probe');
    await gw.app.svc.logs.flush();
    assert.ok(logLines.some((l) => l.includes('"probe"') && l.includes('[redacted]')));
    const secrets = [SECRET, 'wJalrXUtnFEMI', 'tg-key-one', 'fw-old-key', 'fw-new-key', 'fw-bad-key', 'AIza-google'];
    assert.ok(logLines.length > 0, 'logs were captured');
    for (const s of secrets) {
      for (const r of responses) assert.ok(!r.includes(s), `response leaks ${s}: ${r}`);
      for (const l of logLines) assert.ok(!l.includes(s), `log leaks ${s}: ${l}`);
    }
    for (const r of responses) assert.ok(!r.includes('"api_key":'), `response has an api_key field: ${r}`);
  });
});
