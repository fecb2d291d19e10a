// Provider credentials (SPEC "Management API: providers"). `api_key` is write-only: it is encrypted
// before it reaches the store and no response or log line ever contains it.
import { Type } from '@sinclair/typebox';
import { credentialAad } from '../crypto/credential-aad.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { ACCEPTED_VENDOR_NAMES, canonicalVendor } from '../providers/registry.ts';
import type { CredentialRecord } from '../store/credentials.ts';
import { newId } from '../util/ids.ts';
import { isoMinus, nowIso } from '../util/time.ts';
import { liveOr404, notFound, requireOrgKey } from './access.ts';
import { ManagedBy } from './config-managed.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { healthSummary, WINDOWS, windowStats } from './provider-health.ts';
import { configsLeftWithoutVendor } from './provider-needs.ts';
import { validateApiKey, validateBaseUrl } from './provider-validate.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';
import type { Services, VerifyResult } from './services.ts';

const TAG = 'providers';

const VendorName = Type.Unsafe<string>({
  type: 'string',
  enum: [...ACCEPTED_VENDOR_NAMES],
  description: 'Vendor id, or its alias vendor_1..vendor_7 (echoed back as sent)',
});
const ApiKeyInput = Type.String({ minLength: 1, maxLength: 8192, description: 'Write-only; stored encrypted' });
const BaseUrl = Type.String({ maxLength: 2048, description: 'http(s) URL; required for azure-openai' });
const ProviderIdParams = Type.Object({ provider_id: Type.String({ minLength: 1, maxLength: 100 }) });

const Health = Type.Object({
  state: Type.String({
    description:
      'unknown (no call in the last hour), healthy, degraded or unhealthy: the success rate of the last 5 minutes, else of the last hour',
  }),
  p50_latency_ms: Nullable(Type.Integer()),
  last_check_at: Timestamp,
  cooldown_until: Nullable(
    Type.String({
      format: 'date-time',
      description: 'Set while this instance routes around the credential after repeated 401/403/429/5xx answers',
    }),
  ),
});

const Weight = Type.Integer({
  minimum: 0,
  maximum: 1000,
  description:
    "Share of the vendor's traffic among the organization's credentials of that vendor (default 1); 0 = standby, used only while the others cool down",
});

const Provider = Type.Object({
  id: Type.String(),
  object: Type.Literal('provider'),
  managed_by: ManagedBy,
  vendor: Type.String(),
  name: Type.String(),
  base_url: Nullable(Type.String()),
  weight: Type.Integer(),
  status: Type.String(),
  health: Health,
  created_at: Timestamp,
  updated_at: Timestamp,
});

const HealthWindow = Type.Object({
  window: Type.String(),
  requests: Type.Integer(),
  success_rate: Nullable(Type.Number()),
  p50_latency_ms: Nullable(Type.Number()),
  p95_latency_ms: Nullable(Type.Number()),
  p99_latency_ms: Nullable(Type.Number()),
});

const HOUR_MS = 60 * 60_000;

async function providerViews(svc: Services, rows: CredentialRecord[]) {
  const now = Date.now();
  const samples = await svc.stores.logs.latencySamples(
    rows.map((r) => r.id),
    isoMinus(HOUR_MS, now),
  );
  return rows.map((p) => ({
    id: p.id,
    object: 'provider' as const,
    managed_by: null,
    vendor: p.vendor,
    name: p.name,
    base_url: p.baseUrl,
    weight: p.weight,
    status: p.status,
    health: {
      ...healthSummary(
        samples.filter((s) => s.credentialId === p.id),
        now,
        p.verifiedAt ?? p.createdAt,
      ),
      cooldown_until: cooldownUntil(svc, p.id, now),
    },
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  }));
}

function cooldownUntil(svc: Services, id: string, now: number): string | null {
  const until = svc.routing.health.credentials.cooldownEnds(id);
  return until > now ? new Date(until).toISOString() : null;
}

async function providerView(svc: Services, row: CredentialRecord) {
  const [view] = await providerViews(svc, [row]);
  if (!view) throw new Error('unreachable');
  return view;
}

async function activeCredential(svc: Services, orgId: string, id: string): Promise<CredentialRecord> {
  const p = liveOr404(await svc.stores.credentials.get(orgId, id), 'provider', id);
  return p;
}

/** Upstream error texts sometimes quote the key they rejected; never let that reach a response. */
function scrub(message: string, apiKey: string): string {
  let out = message;
  for (const part of [apiKey, ...apiKey.split('::')]) {
    if (part.length >= 6) out = out.split(part).join('[redacted]');
  }
  return out;
}

const listProviders = defineOperation({
  name: 'list_providers',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/providers',
  tag: TAG,
  summary: 'List provider credentials of the organization (paginated by opaque cursor)',
  input: { query: Type.Object({ ...PageQuery }, { additionalProperties: false }) },
  output: pageOf(Provider),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    const page = await pageAfter(
      query,
      (p) => svc.stores.credentials.list(orgId, p),
      (r) => r,
    );
    return { ...page, data: await providerViews(svc, page.data) };
  },
});

const getProvider = defineOperation({
  name: 'get_provider',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/providers/{provider_id}',
  tag: TAG,
  summary: 'Get one provider credential (never the key)',
  input: { params: ProviderIdParams },
  output: Provider,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    return providerView(svc, await activeCredential(svc, orgId, params.provider_id));
  },
});

/**
 * A refused key is the caller's to fix (422); a vendor that could not be asked says nothing about the
 * key (502 provider_unreachable), and storing it anyway is the caller's call: adding takes
 * `verify: false`, a rotation has no such switch since it would swap a working key for an unknown one.
 */
function verifyFailure(
  check: Extract<VerifyResult, { ok: false }>,
  vendor: string,
  apiKey: string,
  kept: string,
  action: 'add' | 'rotate',
): GatewayError {
  // The verifier quotes only a vendor's own error message; whatever else answered shows as a status.
  const detail =
    check.message === ''
      ? `upstream status ${check.status}`
      : `upstream status ${check.status}: ${scrub(check.message, apiKey)}`;
  if (check.outcome === 'refused') {
    const unchecked = action === 'add' ? ' (send "verify": false to store it unchecked)' : '';
    return new GatewayError('key_verification_failed', {
      message: `The ${action === 'add' ? '' : 'new '}api_key was rejected by ${vendor} (${detail}); ${kept}${unchecked}`,
      param: 'api_key',
    });
  }
  const next =
    action === 'add'
      ? 'check base_url and the network, or send "verify": false to store the key unchecked'
      : 'check base_url and the network, then rotate again';
  return new GatewayError('provider_unreachable', {
    message: `${vendor} could not be reached to check the api_key (${detail}); the key was not checked and ${kept}: ${next}`,
    param: 'base_url',
  });
}

const addProvider = defineOperation({
  name: 'add_provider',
  method: 'POST',
  role: 'admin',
  path: '/manage/v1/providers',
  tag: TAG,
  summary:
    'Add a provider credential: the key is checked with the vendor first (422 when refused, 502 provider_unreachable when the vendor cannot be reached; verify: false skips the check) and encrypted at rest',
  status: 201,
  errors: [422, 502],
  input: {
    body: Type.Object(
      {
        vendor: VendorName,
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        api_key: ApiKeyInput,
        base_url: Type.Optional(Nullable(BaseUrl)),
        weight: Type.Optional(Weight),
        verify: Type.Optional(
          Type.Boolean({ default: true, description: 'false stores the key without calling the vendor' }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  output: Provider,
  async handler({ svc, principal, body }) {
    const orgId = requireOrgKey(principal);
    const vendorId = canonicalVendor(body.vendor);
    if (!vendorId) throw new GatewayError('invalid_vendor', { vars: { vendor: String(body.vendor) }, param: 'vendor' });
    const baseUrl = validateBaseUrl(vendorId, body.base_url, svc.config.webhookDenyPrivate);
    validateApiKey(vendorId, body.api_key);
    let verifiedAt: string | null = null;
    if (body.verify !== false) {
      // A key that does not work would otherwise take its share of live traffic and fail it.
      const check = await svc.keyVerifier(vendorId, { apiKey: body.api_key, baseUrl });
      if (!check.ok) throw verifyFailure(check, body.vendor, body.api_key, 'nothing was stored', 'add');
      verifiedAt = nowIso();
    }
    const id = newId('prov');
    const row = await svc.stores.credentials.create({
      id,
      orgId,
      vendor: body.vendor,
      vendorId,
      name: body.name ?? body.vendor,
      baseUrl,
      keyCiphertext: svc.secrets.encrypt(body.api_key, credentialAad(orgId, id)),
      weight: body.weight ?? 1,
      verifiedAt,
    });
    return providerView(svc, row);
  },
});

const updateProvider = defineOperation({
  name: 'update_provider',
  method: 'PATCH',
  role: 'admin',
  path: '/manage/v1/providers/{provider_id}',
  tag: TAG,
  summary: 'Rotate the key (verified with the vendor first; 422 keeps the old key), rename, or change the weight',
  errors: [422, 502],
  input: {
    params: ProviderIdParams,
    body: Type.Object(
      {
        api_key: Type.Optional(ApiKeyInput),
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        base_url: Type.Optional(Nullable(BaseUrl)),
        weight: Type.Optional(Weight),
      },
      { additionalProperties: false },
    ),
  },
  output: Provider,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const current = await activeCredential(svc, orgId, params.provider_id);
    const vendorId = canonicalVendor(current.vendorId);
    if (!vendorId) throw new Error(`stored provider has an unknown vendor: ${current.vendorId}`);
    const baseUrl =
      body.base_url !== undefined
        ? validateBaseUrl(vendorId, body.base_url, svc.config.webhookDenyPrivate)
        : current.baseUrl;
    let keyCiphertext: string | undefined;
    let verifiedAt: string | undefined;
    if (body.api_key !== undefined) {
      validateApiKey(vendorId, body.api_key);
      const check = await svc.keyVerifier(vendorId, { apiKey: body.api_key, baseUrl });
      if (!check.ok) throw verifyFailure(check, current.vendor, body.api_key, 'the current key stays in use', 'rotate');
      keyCiphertext = svc.secrets.encrypt(body.api_key, credentialAad(orgId, current.id));
      verifiedAt = nowIso();
    }
    const row = await svc.stores.credentials.update(orgId, current.id, {
      name: body.name,
      baseUrl: body.base_url !== undefined ? baseUrl : undefined,
      keyCiphertext,
      verifiedAt,
      weight: body.weight,
    });
    if (!row) throw notFound('provider', current.id);
    return providerView(svc, row);
  },
});

const deleteProvider = defineOperation({
  name: 'delete_provider',
  method: 'DELETE',
  role: 'admin',
  path: '/manage/v1/providers/{provider_id}',
  tag: TAG,
  summary:
    'Soft-delete a provider credential; refused (409) while a routing config references it, or needs its vendor and no other credential of that vendor is left (force=true overrides the latter)',
  errors: [409],
  input: {
    params: ProviderIdParams,
    query: Type.Object({ force: Type.Optional(Type.Boolean({ default: false })) }),
  },
  output: Type.Object({ id: Type.String(), object: Type.Literal('provider'), deleted: Type.Boolean() }),
  async handler({ svc, principal, params, query }) {
    const orgId = requireOrgKey(principal);
    const current = await activeCredential(svc, orgId, params.provider_id);
    const refs = await svc.stores.credentials.referencedByConfigs(orgId, current.id);
    if (refs.length > 0) {
      throw new GatewayError('provider_in_use', {
        message: `Provider is still referenced by routing config(s): ${refs.join(', ')}`,
      });
    }
    if (query.force !== true) {
      const needing = await configsLeftWithoutVendor(svc, orgId, current);
      if (needing.length > 0)
        throw new GatewayError('provider_needed', { vars: { vendor: current.vendorId, configs: needing.join(', ') } });
    }
    await svc.stores.credentials.softDelete(orgId, current.id);
    return { id: current.id, object: 'provider' as const, deleted: true };
  },
});

const getProviderHealth = defineOperation({
  name: 'get_provider_health',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/providers/{provider_id}/health',
  tag: TAG,
  summary: 'Latency percentiles and success rate over rolling windows (5m, 1h, 24h)',
  input: { params: ProviderIdParams },
  output: Type.Object({ provider_id: Type.String(), windows: Type.Array(HealthWindow) }),
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    const p = await activeCredential(svc, orgId, params.provider_id);
    const now = Date.now();
    const longest = WINDOWS[WINDOWS.length - 1]?.ms ?? 0;
    const samples = await svc.stores.logs.latencySamples([p.id], isoMinus(longest, now));
    return { provider_id: p.id, windows: windowStats(samples, now) };
  },
});

export const providerOperations: Operation[] = [
  listProviders,
  getProvider,
  addProvider,
  updateProvider,
  deleteProvider,
  getProviderHealth,
];
