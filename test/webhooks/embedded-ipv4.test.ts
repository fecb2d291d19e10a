// Issue 38 item 8: the webhook address check missed IPv4 addresses carried inside IPv6 forms other
// than the mapped one, so `http://[::ffff:0:169.254.169.254]/` (IPv4-translated) reached the cloud
// metadata service. Every IPv4-embedding form is now judged by the IPv4 rules, at create time (400)
// as well as in the unit check.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkEndpointUrl, type PolicyVerdict } from '../../src/webhooks/url-policy.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const open = { denyPrivate: false };
const strict = { denyPrivate: true };
const category = (v: PolicyVerdict) => (v.ok ? 'ok' : v.category);

/** 169.254.169.254 (a9fe:a9fe) inside each IPv6 form that can deliver to it. */
const METADATA_IN_V6 = [
  'http://[::ffff:0:169.254.169.254]/', // IPv4-translated (RFC 6145), ::ffff:0:0:0/96
  'http://[::ffff:0:a9fe:a9fe]/',
  'http://[0:0:0:0:ffff:0:a9fe:a9fe]/',
  'http://[::ffff:169.254.169.254]/', // IPv4-mapped
  'http://[64:ff9b::169.254.169.254]/', // NAT64 well-known prefix
  'http://[64:ff9b:1::a9fe:a9fe]/', // NAT64 local-use prefix, /96 form
  'http://[2002:a9fe:a9fe::1]/', // 6to4
  'http://[2001:0:a9fe:a9fe::1]/', // Teredo server
  'http://[2001:0:4136:e378:8000:63bf:5601:5601]/', // Teredo client (a9fe:a9fe XOR ffff:ffff)
];

describe('IPv4 carried in IPv6 is judged by the IPv4 rules', () => {
  test('the metadata address in every IPv6 form is refused, even with private destinations allowed', () => {
    for (const url of METADATA_IN_V6) {
      const v = checkEndpointUrl(url, open);
      assert.equal(category(v), 'link_local', url);
      assert.ok(!v.ok && v.reason.includes('169.254.169.254'), `${url}: the reason names the carried address`);
    }
  });

  test('loopback and private addresses in IPv6 forms are refused when private destinations are denied', () => {
    for (const [url, want] of [
      ['http://[::ffff:0:127.0.0.1]/', 'loopback'],
      ['http://[2002:7f00:1::]/', 'loopback'],
      ['http://[::ffff:0:10.1.2.3]/', 'private'],
      ['http://[64:ff9b::192.168.1.1]/', 'private'],
    ]) {
      assert.equal(category(checkEndpointUrl(url, strict)), want, url);
      assert.equal(category(checkEndpointUrl(url, open)), 'ok', url);
    }
    // Public addresses in the same forms stay allowed.
    assert.equal(category(checkEndpointUrl('http://[2002:808:808::1]/', strict)), 'ok');
    assert.equal(category(checkEndpointUrl('http://[::ffff:0:8.8.8.8]/', strict)), 'ok');
  });

  describe('through the management API', () => {
    let gw: Gateway;
    before(async () => {
      gw = await startGateway();
    });
    after(async () => {
      await gw?.close();
    });

    test('creating an endpoint at an IPv4-translated metadata address is a 400', async () => {
      const res = await fetch(`${gw.url}/manage/v1/webhooks/endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://[::ffff:0:169.254.169.254]/latest/meta-data/' }),
      });
      const body = (await res.json()) as { error?: { code?: string; message?: string } };
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.error?.code, 'invalid_webhook_url');
      assert.match(body.error?.message ?? '', /169\.254\.169\.254/);
    });
  });
});
