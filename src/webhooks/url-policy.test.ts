import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import {
  checkEndpointUrl,
  checkIpAddress,
  checkResolvedAddress,
  createSafeLookup,
  embeddedIpv4,
  type PolicyVerdict,
  RefusedAddressError,
} from './url-policy.ts';

const open = { denyPrivate: false };
const strict = { denyPrivate: true };

function category(v: PolicyVerdict): string {
  return v.ok ? 'ok' : v.category;
}

test('only http and https without credentials', () => {
  assert.equal(category(checkEndpointUrl('https://hooks.example.com/x', strict)), 'ok');
  assert.equal(category(checkEndpointUrl('http://hooks.example.com:8080/x?y=1', strict)), 'ok');
  for (const u of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)']) {
    assert.equal(category(checkEndpointUrl(u, open)), 'scheme', u);
  }
  assert.equal(category(checkEndpointUrl('https://user:pw@example.com/', open)), 'credentials');
  assert.equal(category(checkEndpointUrl('https://user@example.com/', open)), 'credentials');
  assert.equal(category(checkEndpointUrl('not a url', open)), 'invalid_url');
  assert.equal(category(checkEndpointUrl('/relative/path', open)), 'invalid_url');
});

test('link-local and metadata destinations are refused even when private ones are allowed', () => {
  const cases: Array<[string, string]> = [
    ['http://169.254.169.254/latest/meta-data/', 'link_local'],
    ['http://169.254.0.1/', 'link_local'],
    ['http://[fe80::1]/', 'link_local'],
    ['http://[febf:ffff::1]/', 'link_local'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata'],
    ['http://METADATA.Google.Internal./', 'metadata'],
    ['http://metadata/', 'metadata'],
    ['http://instance-data/', 'metadata'],
    ['http://168.63.129.16/', 'metadata'],
    ['http://100.100.100.200/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://0.0.0.0/', 'non_unicast'],
    ['http://0/', 'non_unicast'],
    ['http://[::]/', 'non_unicast'],
    ['http://224.0.0.1/', 'non_unicast'],
    ['http://255.255.255.255/', 'non_unicast'],
  ];
  for (const [url, want] of cases) {
    assert.equal(category(checkEndpointUrl(url, open)), want, url);
    assert.equal(category(checkEndpointUrl(url, strict)), want, url);
  }
});

test('numeric IPv4 spellings and IPv6 wrappings of the metadata address are all refused', () => {
  for (const url of [
    'http://2852039166/', // decimal
    'http://0xA9FEA9FE/', // hex
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://0251.0376.0251.0376/', // octal
    'http://169.254.43518/', // two-part forms
    'http://169.254.169.254./', // trailing dot
    'http://[::ffff:169.254.169.254]/', // IPv4-mapped, dotted
    'http://[::ffff:a9fe:a9fe]/', // IPv4-mapped, hex
    'http://[0:0:0:0:0:ffff:a9fe:a9fe]/',
    'http://[64:ff9b::169.254.169.254]/', // NAT64
    'http://[::169.254.169.254]/', // IPv4-compatible
  ]) {
    const v = checkEndpointUrl(url, open);
    assert.equal(category(v), 'link_local', url);
    assert.ok(!v.ok && v.reason.includes('169.254.169.254'), `${url}: the reason names the real address`);
  }
});

test('private and loopback destinations only when denyPrivate is set', () => {
  const cases: Array<[string, string]> = [
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.10/', 'private'],
    ['http://100.64.0.1/', 'private'],
    ['http://100.127.255.254/', 'private'],
    ['http://[fc00::1]/', 'private'],
    ['http://[fd12:3456::1]/', 'private'],
    ['http://127.0.0.1:9000/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://localhost:3000/', 'loopback'],
    ['http://LOCALHOST./', 'loopback'],
    ['http://api.localhost/', 'loopback'],
  ];
  for (const [url, want] of cases) {
    assert.equal(category(checkEndpointUrl(url, strict)), want, url);
    assert.equal(category(checkEndpointUrl(url, open)), 'ok', url);
  }
  const v = checkEndpointUrl('http://10.0.0.1/', strict);
  assert.ok(!v.ok && /private destinations are denied/.test(v.reason));
});

test('public neighbours of the refused ranges stay allowed', () => {
  for (const url of [
    'http://172.15.255.255/',
    'http://172.32.0.1/',
    'http://100.63.255.255/',
    'http://100.128.0.1/',
    'http://169.253.255.255/',
    'http://169.255.0.1/',
    'http://8.8.8.8/',
    'http://[2001:4860:4860::8888]/',
    'http://[fe00::1]/',
    'http://[::ffff:8.8.8.8]/',
    'https://metadata.example.com/',
    'https://localhost.example.com/',
  ]) {
    assert.equal(category(checkEndpointUrl(url, strict)), 'ok', url);
  }
});

test('embedded IPv4 extraction', () => {
  assert.equal(embeddedIpv4('::ffff:1.2.3.4'), '1.2.3.4');
  assert.equal(embeddedIpv4('::ffff:102:304'), '1.2.3.4');
  assert.equal(embeddedIpv4('64:ff9b::102:304'), '1.2.3.4');
  assert.equal(embeddedIpv4('::1'), null);
  assert.equal(embeddedIpv4('::'), null);
  assert.equal(embeddedIpv4('2001:db8::1'), null);
  assert.equal(embeddedIpv4('1.2.3.4'), null);
});

test('resolved addresses are checked against the same rules, family included', () => {
  assert.equal(category(checkResolvedAddress('169.254.169.254', 4, open)), 'link_local');
  assert.equal(category(checkResolvedAddress('::ffff:169.254.169.254', 6, open)), 'link_local');
  assert.equal(category(checkResolvedAddress('fe80::1%eth0', 'IPv6', open)), 'link_local');
  assert.equal(category(checkResolvedAddress('10.0.0.5', 4, strict)), 'private');
  assert.equal(category(checkResolvedAddress('10.0.0.5', 4, open)), 'ok');
  assert.equal(category(checkResolvedAddress('93.184.215.14', 4, strict)), 'ok');
  assert.equal(category(checkResolvedAddress('93.184.215.14', 6, strict)), 'invalid_url');
  assert.equal(category(checkIpAddress('example.com', strict)), 'invalid_url');
  const v = checkResolvedAddress('169.254.169.254', 4, open);
  assert.ok(!v.ok && v.reason.startsWith('resolved address 169.254.169.254'));
});

function stubLookup(records: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, records);
    else callback(null, records[0].address, records[0].family);
  };
}

function runLookup(
  fn: LookupFunction,
  all: boolean,
): Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }> {
  return new Promise((resolve) => fn('hooks.example.test', { all }, (err, address) => resolve({ err, address })));
}

test('safe lookup refuses a hostname that resolves only to refused addresses', async () => {
  const lookup = createSafeLookup({
    denyPrivate: false,
    lookup: stubLookup([{ address: '169.254.169.254', family: 4 }]),
  });
  for (const all of [false, true]) {
    const { err } = await runLookup(lookup, all);
    assert.ok(err instanceof RefusedAddressError);
    assert.equal(err.code, 'ERR_ADDRESS_REFUSED');
    assert.equal(err.category, 'link_local');
    assert.match(err.message, /hooks\.example\.test.*169\.254\.169\.254/);
  }
});

test('safe lookup drops refused records and keeps the allowed ones', async () => {
  const records = [
    { address: '10.0.0.7', family: 4 },
    { address: '93.184.215.14', family: 4 },
    { address: '::ffff:169.254.169.254', family: 6 },
  ];
  const lookup = createSafeLookup({ denyPrivate: true, lookup: stubLookup(records) });
  assert.deepEqual((await runLookup(lookup, true)).address, [{ address: '93.184.215.14', family: 4 }]);
  assert.equal((await runLookup(lookup, false)).address, '93.184.215.14');
  const lenient = createSafeLookup({ denyPrivate: false, lookup: stubLookup(records) });
  assert.equal((await runLookup(lenient, false)).address, '10.0.0.7');
});

test('safe lookup passes resolver errors through', async () => {
  const failing: LookupFunction = (_h, _o, callback) => {
    const err: NodeJS.ErrnoException = new Error('getaddrinfo ENOTFOUND');
    err.code = 'ENOTFOUND';
    callback(err, '', undefined);
  };
  const { err } = await runLookup(createSafeLookup({ denyPrivate: true, lookup: failing }), false);
  assert.equal(err?.code, 'ENOTFOUND');
});

test('plugged into an undici Agent, it stops a connection to a hostname resolving to loopback', async () => {
  const server = createServer((_req, res) => res.end('reached'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const toLoopback = stubLookup([{ address: '127.0.0.1', family: 4 }]);
  const url = `http://hooks.example.test:${port}/`;
  const denied = new Agent({ connect: { lookup: createSafeLookup({ denyPrivate: true, lookup: toLoopback }) } });
  const allowed = new Agent({ connect: { lookup: createSafeLookup({ denyPrivate: false, lookup: toLoopback }) } });
  try {
    await assert.rejects(request(url, { dispatcher: denied }), (e: Error) => {
      return e instanceof RefusedAddressError && e.category === 'loopback';
    });
    const ok = await request(url, { dispatcher: allowed });
    assert.equal(await ok.body.text(), 'reached');
  } finally {
    await denied.close();
    await allowed.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
