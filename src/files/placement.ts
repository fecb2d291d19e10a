// Where a file goes and how to reach it again. An upload goes to the credential named by
// `X-Svc-Provider` (a vendor id or alias, or a credential id), by default the org's openai
// credential, else its azure-openai one; `X-Svc-Provider: switchyard`, or an org with neither,
// keeps it in the gateway. `X-Svc-Provider-Key` (BYOK) replaces the key, never the base address,
// which comes from the stored credential (SPEC "Authentication" 3).
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import { headerValue } from '../families/shared/svc-headers.ts';
import type { ResolvedCredential } from '../live/credentials.ts';
import type { LiveState } from '../pipeline/types.ts';
import type { FilesTarget, FilesVendor } from '../providers/capabilities.ts';
import { canonicalVendor, FILES_VENDORS } from '../providers/registry.ts';
import type { FileRecord } from '../store/files.ts';

/** The `X-Svc-Provider` value that keeps a file in the gateway. */
export const GATEWAY_PROVIDER = 'switchyard';

export interface UpstreamPlace {
  location: 'upstream';
  vendor: FilesVendor;
  target: FilesTarget;
  /** Null when a BYOK key went to the vendor's default base without a stored credential. */
  credentialId: string | null;
}

export type Placement = { location: 'gateway' } | UpstreamPlace;

const isFilesVendor = (v: string): v is FilesVendor => (FILES_VENDORS as readonly string[]).includes(v);

/** The org's default credential of a vendor: the oldest one taking traffic, else the oldest standby. */
function defaultCredential(list: readonly ResolvedCredential[]): ResolvedCredential | undefined {
  return list.find((c) => c.weight > 0) ?? list[0];
}

function badProvider(message: string): GatewayError {
  return new GatewayError('invalid_parameter', { message: `X-Svc-Provider: ${message}`, param: 'X-Svc-Provider' });
}

function notConfigured(vendor: string, message?: string): GatewayError {
  return new GatewayError('provider_not_configured', { vars: { vendor }, ...(message ? { message } : {}) });
}

/**
 * The target of one call: the stored credential's base with the BYOK key when one is given. Without
 * a stored credential only openai can be reached (its default base); azure has no default address.
 */
function target(
  vendor: FilesVendor,
  stored: ResolvedCredential | undefined,
  providerKey: string | undefined,
): FilesTarget | undefined {
  if (stored !== undefined)
    return {
      vendor,
      credential: { apiKey: providerKey ?? stored.credential.apiKey, baseUrl: stored.credential.baseUrl },
    };
  if (providerKey !== undefined && vendor === 'openai') return { vendor, credential: { apiKey: providerKey } };
  return undefined;
}

function upstream(
  vendor: FilesVendor,
  stored: ResolvedCredential | undefined,
  providerKey: string | undefined,
): UpstreamPlace | undefined {
  const t = target(vendor, stored, providerKey);
  return t === undefined ? undefined : { location: 'upstream', vendor, target: t, credentialId: stored?.id ?? null };
}

/** Where an upload of this call goes; a 400 when the header names something that cannot hold files. */
export function placeUpload(live: LiveState, orgId: string, headers: IncomingHttpHeaders): Placement {
  const named = headerValue(headers, 'x-svc-provider');
  const providerKey = headerValue(headers, 'x-svc-provider-key');
  if (named === undefined) {
    for (const vendor of FILES_VENDORS) {
      const stored = defaultCredential(live.credentialsFor(orgId, vendor));
      if (stored !== undefined) return upstream(vendor, stored, providerKey) as UpstreamPlace;
    }
    return { location: 'gateway' };
  }
  if (named.toLowerCase() === GATEWAY_PROVIDER) return { location: 'gateway' };
  const vendor = canonicalVendor(named);
  if (vendor !== undefined) {
    if (!isFilesVendor(vendor))
      throw badProvider(`${vendor} has no files API here; use openai, azure-openai or ${GATEWAY_PROVIDER}`);
    const place = upstream(vendor, defaultCredential(live.credentialsFor(orgId, vendor)), providerKey);
    if (place === undefined) throw notConfigured(vendor);
    return place;
  }
  const stored = live.credentialById(orgId, named);
  if (stored === undefined)
    throw badProvider(`'${named.slice(0, 80)}' is neither a vendor, ${GATEWAY_PROVIDER}, nor a provider credential id`);
  if (!isFilesVendor(stored.vendor))
    throw badProvider(`credential ${stored.id} is a ${stored.vendor} credential; files go to openai or azure-openai`);
  return upstream(stored.vendor, stored, providerKey) as UpstreamPlace;
}

/**
 * How to reach an upstream file again: through the credential it was sent through, its key replaced
 * by BYOK. A file sent through a credential since removed is not looked for elsewhere: another
 * address need not know it.
 */
export function reachFile(live: LiveState, file: FileRecord, headers: IncomingHttpHeaders): UpstreamPlace {
  const vendor = file.vendor ?? '';
  if (!isFilesVendor(vendor)) throw new Error(`file ${file.id} has no upstream vendor`);
  const stored = file.credentialId === null ? undefined : live.credentialById(file.orgId, file.credentialId);
  const place =
    file.credentialId !== null && stored === undefined
      ? undefined
      : upstream(vendor, stored, headerValue(headers, 'x-svc-provider-key'));
  if (place !== undefined) return place;
  throw notConfigured(
    vendor,
    file.credentialId === null
      ? `file ${file.id} was uploaded with X-Svc-Provider-Key only: send the key again to reach it`
      : `the ${vendor} credential ${file.credentialId} that holds file ${file.id} is no longer configured`,
  );
}
