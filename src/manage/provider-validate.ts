// Checks on provider credential input that a JSON schema cannot express.

import { GatewayError } from '../errors/gateway-error.ts';
import type { VendorId } from '../providers/types.ts';
import { checkEndpointUrl } from '../util/address-policy.ts';

/**
 * A base_url is dialled with the org's vendor key, so it is held to the webhooks' address policy:
 * link-local and metadata addresses always refused, private and loopback ones when `denyPrivate`
 * (SWITCHYARD_DENY_PRIVATE_ADDRESSES). Verification dials it under the same policy at connect time.
 */
export function validateBaseUrl(
  vendor: VendorId,
  baseUrl: string | null | undefined,
  denyPrivate = false,
): string | null {
  if (baseUrl === undefined || baseUrl === null || baseUrl === '') {
    if (vendor === 'azure-openai') {
      throw new GatewayError('missing_base_url', {
        message: "base_url is required for azure-openai (e.g. 'https://<resource>.openai.azure.com')",
        param: 'base_url',
      });
    }
    return null;
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GatewayError('invalid_base_url', {
      message: `base_url is not a valid URL: '${baseUrl}'`,
      param: 'base_url',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new GatewayError('invalid_base_url', {
      message: 'base_url must be an http:// or https:// URL',
      param: 'base_url',
    });
  }
  if (url.username || url.password) {
    throw new GatewayError('invalid_base_url', { message: 'base_url must not contain credentials', param: 'base_url' });
  }
  const verdict = checkEndpointUrl(baseUrl, { denyPrivate });
  if (!verdict.ok)
    throw new GatewayError('invalid_base_url', { message: `base_url: ${verdict.reason}`, param: 'base_url' });
  // Stored without a trailing slash so adapters can append their paths uniformly.
  return baseUrl.replace(/\/+$/, '');
}

const AKID = /^[A-Z0-9]{16,128}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** Bedrock keys carry IAM credentials: `<ACCESS_KEY_ID>::<SECRET>::<REGION>[::<SESSION_TOKEN>]`. */
export function validateApiKey(vendor: VendorId, apiKey: string): void {
  if (apiKey.trim() !== apiKey || apiKey === '') {
    throw new GatewayError('invalid_api_key_format', {
      message: 'api_key must be non-empty and have no surrounding whitespace',
      param: 'api_key',
    });
  }
  if (vendor !== 'bedrock') return;
  const parts = apiKey.split('::');
  const [akid, secret, region] = parts;
  const ok =
    (parts.length === 3 || parts.length === 4) &&
    akid !== undefined &&
    AKID.test(akid) &&
    secret !== undefined &&
    secret.length > 0 &&
    region !== undefined &&
    REGION.test(region) &&
    (parts.length === 3 || (parts[3] ?? '') !== '');
  if (!ok) {
    throw new GatewayError('invalid_api_key_format', {
      message:
        'api_key for bedrock must look like <ACCESS_KEY_ID>::<SECRET_ACCESS_KEY>::<REGION> with an optional ::<SESSION_TOKEN> suffix (e.g. AKIA...::wJal...::us-east-1)',
      param: 'api_key',
    });
  }
}
