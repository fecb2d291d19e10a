// Key verification before a credential is stored or rotated: the vendor's cheapest authenticated call.
// Three outcomes, because a caller acts differently on each: the vendor accepted the key; the vendor
// refused it (fix the key); or the vendor could not be asked (fix base_url or the network, or store the
// key unchecked). An outage must not read as a bad key.
//
// The base_url is the caller's to choose, so the call is held to the gateway's address policy before
// it is dialled (a name that resolves to a metadata address is refused), and what answered
// is quoted only when it speaks a vendor's error shape: the body of an arbitrary service is not
// handed back to whoever pointed the gateway at it.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { checkEndpointUrl, checkResolvedAddress } from '../util/address-policy.ts';
import { isRecord, parseBoundedJson } from '../util/json.ts';
import { sendUpstream, UpstreamTransportError } from './http.ts';
import { chatAdapterFor } from './registry.ts';
import type { Credential, VendorId } from './types.ts';

export type VerifyResult =
  | { ok: true }
  /**
   * `refused`: the vendor answered and turned the key down. `unreachable`: no verdict on the key.
   * `message` is empty when the answer carried no vendor error message worth quoting.
   */
  | { ok: false; outcome: 'refused' | 'unreachable'; status: number; message: string };

export interface VerifyOptions {
  /** Also refuse private and loopback destinations (SWITCHYARD_DENY_PRIVATE_ADDRESSES). */
  denyPrivate?: boolean;
}

/**
 * Why the policy refuses to dial `url`: its literal host, or any address its name resolves to now.
 * A name that does not resolve is left to the call, which then fails with its own cause.
 */
async function addressRefusal(url: string, denyPrivate: boolean): Promise<string | undefined> {
  const verdict = checkEndpointUrl(url, { denyPrivate });
  if (!verdict.ok) return verdict.reason;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return undefined;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  for (const a of addresses) {
    const v = checkResolvedAddress(a.address, a.family, { denyPrivate });
    if (!v.ok) return `host ${host}: ${v.reason}`;
  }
  return undefined;
}

/** Statuses where the vendor was reached but gave no verdict on the key (overload, outage, timeout). */
function isVerdict(status: number): boolean {
  return status < 500 && status !== 408 && status !== 429;
}

/**
 * The decoded message when it came out of a JSON error body (the vendor decoders read only their
 * own shapes); empty when the decoder fell back to the raw text or the status.
 */
function vendorMessage(text: string, message: string): string {
  const parsed = parseBoundedJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) return '';
  if (message === '' || message === text.trim()) return '';
  return message.slice(0, 500);
}

export async function verifyProviderKey(
  vendor: VendorId,
  credential: Credential,
  opts: VerifyOptions = {},
): Promise<VerifyResult> {
  const adapter = chatAdapterFor(vendor, '');
  try {
    const spec = await adapter.verifyKeyRequest(credential);
    const refused = await addressRefusal(spec.url, opts.denyPrivate ?? false);
    if (refused !== undefined) return { ok: false, outcome: 'unreachable', status: 502, message: refused };
    const res = await sendUpstream(spec, { signal: AbortSignal.timeout(10_000) });
    const text = await res.body.text();
    if (res.status >= 200 && res.status < 300) return { ok: true };
    const info = adapter.decodeError(res.status, text, res.headers);
    const outcome = isVerdict(res.status) ? 'refused' : 'unreachable';
    return { ok: false, outcome, status: res.status, message: vendorMessage(text, info.message) };
  } catch (err) {
    const info =
      err instanceof UpstreamTransportError
        ? err.info
        : { status: 502, message: err instanceof Error ? err.message : String(err) };
    return { ok: false, outcome: 'unreachable', status: info.status, message: info.message };
  }
}
