// AWS request signing for Bedrock runtime calls. Credentials are stored as one opaque string
// (`AKID::SECRET::REGION[::SESSION_TOKEN]`) or a Bedrock API key sent as a Bearer token.
import type { SignatureV4 as Signer } from '@smithy/signature-v4';
import { baseUrlOr } from '../shared/base-url.ts';
import type { Credential, HttpRequestSpec } from '../types.ts';

export interface AwsKeyPair {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  sessionToken?: string;
}

export type ParsedAwsKey = AwsKeyPair | { bearer: string };

/** Bedrock API keys carry no region, so Bearer credentials use the service's default region. */
export const DEFAULT_BEARER_REGION = 'us-east-1';

export function parseAwsKey(apiKey: string): ParsedAwsKey {
  const key = apiKey.trim();
  if (!key.includes('::')) return { bearer: key };
  const [accessKeyId, secretAccessKey, region, sessionToken] = key.split('::');
  if (!accessKeyId || !secretAccessKey || !region) {
    throw new Error('bedrock credential must be AKID::SECRET::REGION[::SESSION_TOKEN]');
  }
  return sessionToken
    ? { accessKeyId, secretAccessKey, region, sessionToken }
    : { accessKeyId, secretAccessKey, region };
}

function regionOf(parsed: ParsedAwsKey): string {
  return 'bearer' in parsed ? DEFAULT_BEARER_REGION : parsed.region;
}

export function bedrockBaseUrl(credential: Credential): string {
  if (credential.baseUrl) return baseUrlOr(credential.baseUrl, '');
  return `https://bedrock-runtime.${regionOf(parseAwsKey(credential.apiKey))}.amazonaws.com`;
}

// The signing libraries (~12 MB resident loaded alone) load with the first key-pair signature:
// gateways without Bedrock targets, or with Bedrock API keys (plain Bearer), never need them.
async function loadSigning() {
  const [{ Sha256 }, { HttpRequest }, { SignatureV4 }] = await Promise.all([
    import('@aws-crypto/sha256-js'),
    import('@smithy/protocol-http'),
    import('@smithy/signature-v4'),
  ]);
  return { Sha256, HttpRequest, SignatureV4 };
}
type Signing = Awaited<ReturnType<typeof loadSigning>>;
let signing: Promise<Signing> | undefined;

// Building a signer derives nothing expensive, but signing keys are memoised inside each instance
// (per day), so reusing the instance per key pair saves the HMAC chain on every request.
const SIGNER_CACHE_MAX = 256;
const signers = new Map<string, { secret: string; token?: string; signer: Signer }>();

function signerFor(key: AwsKeyPair, { Sha256, SignatureV4 }: Signing): Signer {
  const cacheKey = `${key.accessKeyId}\u0000${key.region}`;
  const hit = signers.get(cacheKey);
  // A rotated secret for the same key id must not reuse the old signer.
  if (hit && hit.secret === key.secretAccessKey && hit.token === key.sessionToken) return hit.signer;
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: key.accessKeyId,
      secretAccessKey: key.secretAccessKey,
      ...(key.sessionToken ? { sessionToken: key.sessionToken } : {}),
    },
    region: key.region,
    service: 'bedrock',
    sha256: Sha256,
  });
  if (signers.size >= SIGNER_CACHE_MAX && !hit) {
    const oldest = signers.keys().next().value;
    if (oldest !== undefined) signers.delete(oldest);
  }
  signers.set(cacheKey, { secret: key.secretAccessKey, token: key.sessionToken, signer });
  return signer;
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const prev = query[name];
    if (prev === undefined) query[name] = value;
    else query[name] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return query;
}

export interface SignOptions {
  /** Fixed clock for tests. */
  signingDate?: Date;
}

/**
 * Signs `spec` as it will be sent: the path keeps its on-the-wire encoding (e.g. `%3A` in model ids),
 * which the signer escapes once more for the canonical URI as AWS requires; any base-url prefix is
 * part of the signed path. Bearer keys get an Authorization header instead.
 */
export async function signAws(
  spec: HttpRequestSpec,
  credential: Credential,
  options: SignOptions = {},
): Promise<HttpRequestSpec> {
  const parsed = parseAwsKey(credential.apiKey);
  if ('bearer' in parsed) {
    return { ...spec, headers: { ...spec.headers, authorization: `Bearer ${parsed.bearer}` } };
  }
  signing ??= loadSigning();
  const libs = await signing;
  const url = new URL(spec.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.headers)) headers[name.toLowerCase()] = value;
  headers.host = url.host;
  const request = new libs.HttpRequest({
    method: spec.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query: queryOf(url),
    headers,
    body: spec.body,
  });
  const signed = await signerFor(parsed, libs).sign(request, { signingDate: options.signingDate });
  return { ...spec, headers: { ...signed.headers } };
}
