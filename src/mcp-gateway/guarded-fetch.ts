// The fetch every HTTP connection to a registered MCP server (streamable_http and sse) goes through.
// A URL is checked when it is registered, but its host may resolve elsewhere by the time the gateway
// connects (DNS rebinding), so each request checks its URL again and each new socket resolves
// through the address policy: link-local and metadata addresses always fail, private and loopback
// ones too when SWITCHYARD_DENY_PRIVATE_ADDRESSES is on, as for webhook endpoints.
import type { LookupFunction } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { guardedFetch } from '../providers/http.ts';
import { checkEndpointUrl, RefusedAddressError } from '../util/address-policy.ts';

export interface AddressPolicy {
  denyPrivate: boolean;
  /** The resolver under the policy; dns.lookup by default, a stub in tests. */
  lookup?: LookupFunction;
}

/** A destination the policy refused; its message is the tool error's reason. */
export class AddressRefused extends Error {}

export function mcpFetch(policy: AddressPolicy): { fetch: FetchLike; close(): Promise<void> } {
  const inner = guardedFetch({ denyPrivate: policy.denyPrivate, lookup: policy.lookup });
  const fetch: FetchLike = async (url, init) => {
    // A literal IP skips the lookup; a tightened policy must still refuse a URL registered before.
    const verdict = checkEndpointUrl(String(url), { denyPrivate: policy.denyPrivate });
    if (!verdict.ok) throw new AddressRefused(verdict.reason);
    try {
      return await inner.fetch(url, init);
    } catch (err) {
      // undici reports a refused lookup as `fetch failed` with the reason as its cause.
      const cause = err instanceof Error ? err.cause : undefined;
      if (cause instanceof RefusedAddressError) throw new AddressRefused(cause.message);
      throw err;
    }
  };
  return { fetch, close: inner.close };
}
