// Webhook endpoint URLs are dialled under the gateway's one address policy (src/util/address-policy.ts),
// shared with provider base URLs; re-exported here under the names the webhooks feature uses.
export {
  checkEndpointUrl,
  checkIpAddress,
  checkResolvedAddress,
  createSafeLookup,
  embeddedIpv4,
  embeddedIpv4s,
  type PolicyVerdict,
  type RefusalCategory,
  RefusedAddressError,
  type SafeLookupOptions,
  type UrlPolicyOptions,
} from '../util/address-policy.ts';
