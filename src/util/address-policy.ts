// The address policy for every URL the gateway dials because a tenant or an operator wrote it:
// webhook endpoints and provider base URLs. Without it, whoever may set such a URL could have the
// gateway read cloud metadata (credentials) or reach services behind its firewall.
//
// Two checks, because neither is enough alone: the URL check when the URL is written gives the
// caller a clear 400, and the resolved-address check at connect time catches a hostname that
// resolves (or is later re-pointed: DNS rebinding) to a refused address. Node's net.connect skips
// the lookup for a literal IP, so a sender must run `checkEndpointUrl` again as well as installing
// `createSafeLookup`.
//
// An IPv6 address that carries an IPv4 one (mapped, translated, NAT64, 6to4, Teredo, compatible) is
// judged by the IPv4 rules as well: a stack, a translator or a tunnel may deliver it there.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface UrlPolicyOptions {
  /** Also refuse private and loopback destinations (`SWITCHYARD_DENY_PRIVATE_ADDRESSES=true`). */
  readonly denyPrivate: boolean;
}

/** Why a destination was refused; `link_local`, `metadata` and `non_unicast` are refused always. */
export type RefusalCategory =
  | 'invalid_url'
  | 'scheme'
  | 'credentials'
  | 'link_local'
  | 'metadata'
  | 'non_unicast'
  | 'private'
  | 'loopback';

export type PolicyVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly category: RefusalCategory; readonly reason: string };

const OK: PolicyVerdict = { ok: true };

interface Rule {
  readonly category: Exclude<RefusalCategory, 'invalid_url' | 'scheme' | 'credentials'>;
  readonly always: boolean;
  readonly what: string;
  readonly list: BlockList;
}

function rule(category: Rule['category'], always: boolean, what: string, ranges: readonly string[]): Rule {
  const list = new BlockList();
  for (const r of ranges) {
    const [net, bits] = r.split('/');
    const family = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(net, family);
    else list.addSubnet(net, Number(bits), family);
  }
  return { category, always, what, list };
}

// Order matters: the first match names the reason, so the specific metadata addresses come before
// the broad ranges that contain some of them (100.100.100.200 is inside 100.64/10).
const RULES: readonly Rule[] = [
  rule('metadata', true, 'a cloud metadata address', [
    '168.63.129.16', // Azure wire server (a public address, so no range below covers it)
    '100.100.100.200', // Alibaba Cloud metadata
    'fd00:ec2::254', // AWS IMDS over IPv6
  ]),
  rule('link_local', true, 'a link-local address (cloud metadata lives here)', ['169.254.0.0/16', 'fe80::/10']),
  rule('non_unicast', true, 'not a unicast address', [
    '0.0.0.0/8', // "this network": connecting to 0.0.0.0 reaches the local host on Linux
    '224.0.0.0/4',
    '240.0.0.0/4', // reserved, includes the broadcast address
    '::/128',
    'ff00::/8',
  ]),
  rule('loopback', false, 'a loopback address', ['127.0.0.0/8', '::1/128']),
  rule('private', false, 'a private address', [
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '100.64.0.0/10', // carrier-grade NAT, also used inside some clouds
    'fc00::/7',
    'fec0::/10', // deprecated site-local, still routed by some stacks
    '64:ff9b:1::/48', // local-use NAT64 (RFC 8215): translates into the operator's own network
  ]),
];

// Hostnames that reach metadata services without any DNS an operator controls.
const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.azure.internal',
]);

const ipv4Pattern = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

const quad = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');

/**
 * The IPv4 addresses an IPv6 address carries, in every form that can deliver to them: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96, RFC 6145), NAT64 (64:ff9b::/96 and the
 * local-use 64:ff9b:1::/48, whose common /96 form keeps the address last), 6to4 (2002::/16), Teredo
 * (2001::/32: the server, and the client XOR-ed) and the deprecated IPv4-compatible ::a.b.c.d.
 */
export function embeddedIpv4s(address: string): string[] {
  if (isIP(address) !== 6) return [];
  const g = expandIpv6(address);
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last = quad(g[6], g[7]);
  if (zero(0, 5) && g[5] === 0xffff) return [last]; // mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [last]; // translated
  if (g[0] === 0x64 && g[1] === 0xff9b && (zero(2, 6) || g[2] === 1)) return [last]; // NAT64
  if (g[0] === 0x2002) return [quad(g[1], g[2])]; // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return [quad(g[2], g[3]), quad(g[6] ^ 0xffff, g[7] ^ 0xffff)]; // Teredo
  if (zero(0, 6) && (g[6] !== 0 || g[7] > 1)) return [last]; // compatible (not :: or ::1)
  return [];
}

/** The first IPv4 address an IPv6 address carries (see embeddedIpv4s), or null. */
export function embeddedIpv4(address: string): string | null {
  return embeddedIpv4s(address)[0] ?? null;
}

function expandIpv6(address: string): number[] {
  let text = address.split('%')[0].toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hex groups.
  const dotted = ipv4Pattern.exec(text.slice(text.lastIndexOf(':') + 1));
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, text.lastIndexOf(':') + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === null ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => Number.parseInt(g, 16));
}

/** The verdict for one IP address, given as text (either family, brackets and zone id allowed). */
export function checkIpAddress(address: string, options: UrlPolicyOptions): PolicyVerdict {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0];
  const family = isIP(bare);
  if (family === 0) return { ok: false, category: 'invalid_url', reason: `${address} is not an IP address` };
  const carried = family === 6 ? embeddedIpv4s(bare) : [];
  for (const r of RULES) {
    const v4 = carried.find((a) => r.list.check(a, 'ipv4'));
    const hit = r.list.check(bare, family === 6 ? 'ipv6' : 'ipv4') || v4 !== undefined;
    if (!hit) continue;
    if (!r.always && !options.denyPrivate) continue;
    const when = r.always ? 'always refused' : 'refused because private destinations are denied';
    const shown = v4 !== undefined ? `${bare} (${v4})` : bare;
    return { ok: false, category: r.category, reason: `${shown} is ${r.what}; ${when}` };
  }
  return OK;
}

function checkHostname(host: string, options: UrlPolicyOptions): PolicyVerdict {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(name)) {
    return { ok: false, category: 'metadata', reason: `${name} is a cloud metadata host; always refused` };
  }
  if (options.denyPrivate && (name === 'localhost' || name.endsWith('.localhost'))) {
    return {
      ok: false,
      category: 'loopback',
      reason: `${name} is a loopback host; refused because private destinations are denied`,
    };
  }
  return OK;
}

/**
 * Create/update-time check of an endpoint URL. Node's WHATWG URL parser already rewrites the
 * numeric IPv4 spellings (2852039166, 0xA9FEA9FE, 0251.0376.0251.0376, 169.254.1) to dotted
 * form, so one address check covers them all.
 */
export function checkEndpointUrl(raw: string, options: UrlPolicyOptions): PolicyVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, category: 'invalid_url', reason: 'url is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      ok: false,
      category: 'scheme',
      reason: `url scheme ${url.protocol.slice(0, -1)} is not allowed; use http or https`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, category: 'credentials', reason: 'url must not contain a username or password' };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return { ok: false, category: 'invalid_url', reason: 'url has no host' };
  const verdict = isIP(host) ? checkIpAddress(host, options) : checkHostname(host, options);
  return verdict.ok ? verdict : { ...verdict, reason: `url host ${verdict.reason}` };
}

/** Delivery-time check of an address DNS returned for the endpoint's host. */
export function checkResolvedAddress(
  address: string,
  family: number | string,
  options: UrlPolicyOptions,
): PolicyVerdict {
  const expected = family === 6 || family === 'IPv6' ? 6 : family === 4 || family === 'IPv4' ? 4 : isIP(address);
  if (isIP(address) !== expected) {
    return {
      ok: false,
      category: 'invalid_url',
      reason: `resolved address ${address} is not an IPv${expected} address`,
    };
  }
  const verdict = checkIpAddress(address, options);
  return verdict.ok ? verdict : { ...verdict, reason: `resolved address ${verdict.reason}` };
}

export class RefusedAddressError extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
  constructor(
    readonly hostname: string,
    readonly category: RefusalCategory,
    reason: string,
  ) {
    super(`host ${hostname}: ${reason}`);
    this.name = 'RefusedAddressError';
  }
}

export interface SafeLookupOptions extends UrlPolicyOptions {
  /** The resolver to wrap; dns.lookup by default, a stub in tests. */
  readonly lookup?: LookupFunction;
}

/**
 * A `lookup` for net/tls/undici connect options (`new Agent({connect: {lookup}})`) that resolves as
 * usual and drops refused addresses, failing with RefusedAddressError when none remain. Filtering
 * rather than failing on the first bad record is safe because the socket only ever dials what this
 * returns; it keeps a host with one stray private record working where that is allowed.
 */
export function createSafeLookup(options: SafeLookupOptions): LookupFunction {
  const inner: LookupFunction = options.lookup ?? (dnsLookup as LookupFunction);
  return function safeLookup(hostname, lookupOptions: LookupOptions, callback) {
    // With autoSelectFamily (Node 20's default) net asks for every address; ask for all either way
    // so a refused first record does not hide an allowed second one.
    inner(hostname, { ...lookupOptions, all: true }, (err, result, family) => {
      if (err) return callback(err, '', undefined);
      const all: LookupAddress[] = typeof result === 'string' ? [{ address: result, family: family ?? 0 }] : result;
      let firstRefusal: PolicyVerdict = OK;
      const allowed = all.filter((a) => {
        const v = checkResolvedAddress(a.address, a.family, options);
        if (!v.ok && firstRefusal.ok) firstRefusal = v;
        return v.ok;
      });
      if (allowed.length === 0) {
        const refusal = firstRefusal.ok
          ? { category: 'invalid_url' as const, reason: 'no address resolved' }
          : firstRefusal;
        return callback(new RefusedAddressError(hostname, refusal.category, refusal.reason), '', undefined);
      }
      if (lookupOptions.all === true) return callback(null, allowed, undefined);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
