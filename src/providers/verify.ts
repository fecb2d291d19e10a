// Key verification before a credential rotation: the vendor's cheapest authenticated call.
import { sendUpstream, UpstreamTransportError } from './http.ts';
import { chatAdapterFor } from './registry.ts';
import type { Credential, VendorId } from './types.ts';

export type VerifyResult = { ok: true } | { ok: false; status: number; message: string };

export async function verifyProviderKey(vendor: VendorId, credential: Credential): Promise<VerifyResult> {
  const adapter = chatAdapterFor(vendor, '');
  try {
    const spec = await adapter.verifyKeyRequest(credential);
    const res = await sendUpstream(spec, { signal: AbortSignal.timeout(10_000) });
    const text = await res.body.text();
    if (res.status >= 200 && res.status < 300) return { ok: true };
    const info = adapter.decodeError(res.status, text, res.headers);
    return { ok: false, status: res.status, message: info.message };
  } catch (err) {
    if (err instanceof UpstreamTransportError) return { ok: false, status: err.info.status, message: err.info.message };
    return { ok: false, status: 502, message: err instanceof Error ? err.message : String(err) };
  }
}
