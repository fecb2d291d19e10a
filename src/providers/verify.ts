// Key verification before a credential is stored or rotated: the vendor's cheapest authenticated call.
// Three outcomes, because a caller acts differently on each: the vendor accepted the key; the vendor
// refused it (fix the key); or the vendor could not be asked (fix base_url or the network, or store the
// key unchecked). An outage must not read as a bad key.
import { sendUpstream, UpstreamTransportError } from './http.ts';
import { chatAdapterFor } from './registry.ts';
import type { Credential, VendorId } from './types.ts';

export type VerifyResult =
  | { ok: true }
  /** `refused`: the vendor answered and turned the key down. `unreachable`: no verdict on the key. */
  | { ok: false; outcome: 'refused' | 'unreachable'; status: number; message: string };

/** Statuses where the vendor was reached but gave no verdict on the key (overload, outage, timeout). */
function isVerdict(status: number): boolean {
  return status < 500 && status !== 408 && status !== 429;
}

export async function verifyProviderKey(vendor: VendorId, credential: Credential): Promise<VerifyResult> {
  const adapter = chatAdapterFor(vendor, '');
  try {
    const spec = await adapter.verifyKeyRequest(credential);
    const res = await sendUpstream(spec, { signal: AbortSignal.timeout(10_000) });
    const text = await res.body.text();
    if (res.status >= 200 && res.status < 300) return { ok: true };
    const info = adapter.decodeError(res.status, text, res.headers);
    const outcome = isVerdict(res.status) ? 'refused' : 'unreachable';
    return { ok: false, outcome, status: res.status, message: info.message };
  } catch (err) {
    const info =
      err instanceof UpstreamTransportError
        ? err.info
        : { status: 502, message: err instanceof Error ? err.message : String(err) };
    return { ok: false, outcome: 'unreachable', status: info.status, message: info.message };
  }
}
