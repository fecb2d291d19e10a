// SigV4 check: re-signs the request as received (path incl. the /bedrock prefix, only the headers the
// client listed) with the configured secret and compares signatures. Any access key id is accepted.
import { timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { FakeContext } from '../context.ts';
import { isRefusedKey, presentKey } from '../script.ts';

export type AuthCheck =
  | { ok: true }
  | {
      ok: false;
      name: 'InvalidSignatureException' | 'MissingAuthenticationTokenException' | 'UnrecognizedClientException';
      message: string;
    };

const AUTH =
  /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;
const MAX_SKEW_MS = 15 * 60 * 1000;

function parseAmzDate(v: string | undefined): Date | undefined {
  const m = v ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v) : null;
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

function signerFor(ctx: FakeContext, accessKeyId: string, region: string, service: string): SignatureV4 {
  const signers = ctx.state.store('bedrock.signers', () => new Map<string, SignatureV4>());
  const key = `${accessKeyId}\u0000${region}\u0000${service}\u0000${ctx.header('x-amz-security-token') ?? ''}`;
  let s = signers.get(key);
  if (!s) {
    const sessionToken = ctx.header('x-amz-security-token');
    s = new SignatureV4({
      credentials: {
        accessKeyId,
        secretAccessKey: ctx.state.opts.awsSecret,
        ...(sessionToken ? { sessionToken } : {}),
      },
      region,
      service,
      sha256: Sha256,
      // The client decided whether to sign a payload hash header; never add one on our side.
      applyChecksum: false,
    });
    if (signers.size > 1000) signers.clear();
    signers.set(key, s);
  }
  return s;
}

const bad = (message: string): AuthCheck => ({ ok: false, name: 'InvalidSignatureException', message });

export async function verifySigV4(ctx: FakeContext, authorization: string): Promise<AuthCheck> {
  const m = AUTH.exec(authorization.trim());
  if (!m)
    return {
      ok: false,
      name: 'InvalidSignatureException',
      message: 'Authorization header requires Credential, SignedHeaders and Signature parameters.',
    };
  const [, accessKeyId, day, region, service, signedHeaders, signature] = m;
  if (service !== 'bedrock') return bad(`Credential should be scoped to correct service: 'bedrock'.`);
  const date = parseAmzDate(ctx.header('x-amz-date'));
  if (!date) return bad('Missing or malformed X-Amz-Date header.');
  if (!ctx.header('x-amz-date')?.startsWith(day)) return bad('Credential scope date does not match X-Amz-Date.');
  if (Math.abs(Date.now() - date.getTime()) > MAX_SKEW_MS)
    return bad('Signature expired: the request time is too far from the server time.');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) {
    const v = ctx.req.headers[name];
    if (v === undefined) return bad(`Signed header '${name}' is missing from the request.`);
    headers[name] = Array.isArray(v) ? v.join(',') : v;
  }
  const hostHeader = headers.host ?? ctx.header('host') ?? 'localhost';
  const body = await ctx.body();
  const request = new HttpRequest({
    method: ctx.method,
    protocol: 'http:',
    hostname: hostHeader.replace(/:\d+$/, ''),
    path: `${ctx.prefix}${ctx.path}`,
    query: Object.fromEntries(ctx.query),
    headers,
    body,
  });
  const signed = await signerFor(ctx, accessKeyId, region, service).sign(request, {
    signingDate: date,
    signingRegion: region,
    signingService: service,
  });
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? ''))?.[1] ?? '';
  const same = expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
  return same
    ? { ok: true }
    : bad(
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
      );
}

/** SigV4, or a Bedrock API key sent as `Authorization: Bearer <key>` (any but a scripted refused one). */
export async function checkAwsAuth(ctx: FakeContext): Promise<AuthCheck> {
  const auth = presentKey(ctx.header('authorization'));
  if (!auth) return { ok: false, name: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const bearer = /^Bearer\s+(.+)$/i.exec(auth);
  if (bearer)
    return !isRefusedKey(bearer[1])
      ? { ok: true }
      : {
          ok: false,
          name: 'UnrecognizedClientException',
          message: 'The security token included in the request is invalid.',
        };
  return verifySigV4(ctx, auth);
}
