// Model name -> upstream target with its credential (stored for the org, or BYOK for this call only).
import { ACCEPTED_MODEL_FORMS, parseModelRef } from '../providers/registry.ts';
import type { ChatTarget } from './chat-attempt.ts';
import type { Principal, ProxyDeps } from './deps.ts';
import type { GatewayError } from './errors.ts';
import type { SvcHeaders } from '../families/shared/svc-headers.ts';

export class GatewayFailure extends Error implements GatewayError {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export function resolveDirectTarget(model: string, principal: Principal, hdr: SvcHeaders, deps: ProxyDeps): ChatTarget {
  const ref = parseModelRef(model);
  if (!ref)
    throw new GatewayFailure(400, `unknown model "${model}"; ${ACCEPTED_MODEL_FORMS}`, 'model_not_found', 'model');
  if (ref.kind === 'config') {
    throw new GatewayFailure(400, 'routing configs not available', 'routing_configs_unavailable', 'model');
  }
  const { resolved } = ref;
  const stored = deps.resolveCredential(principal.orgId, resolved.vendor);
  if (hdr.providerKey) {
    // BYOK: the key is used for this call only; the base URL still comes from a stored credential if any.
    return {
      vendor: resolved.vendor,
      vendorAsSent: resolved.vendorAsSent,
      model: resolved.model,
      credential: { apiKey: hdr.providerKey, baseUrl: stored?.credential.baseUrl ?? null },
    };
  }
  if (!stored) {
    throw new GatewayFailure(
      400,
      `no provider credential for vendor "${resolved.vendorAsSent}": add one with POST /manage/v1/providers or send X-Svc-Provider-Key`,
      'provider_not_configured',
      'model',
    );
  }
  return {
    vendor: resolved.vendor,
    vendorAsSent: resolved.vendorAsSent,
    model: resolved.model,
    credentialId: stored.id,
    credential: stored.credential,
  };
}
