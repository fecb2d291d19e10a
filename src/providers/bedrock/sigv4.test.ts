import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import type { HttpRequestSpec } from '../types.ts';
import { bedrockBaseUrl, parseAwsKey, signAws } from './sigv4.ts';

const sha256Hex = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

// Independent SigV4 computation written from the published algorithm (wire-formats.md 6.9),
// used to cross-check the smithy signer, including the double-encoded canonical URI.
function referenceSignature(
  spec: HttpRequestSpec,
  headers: Record<string, string>,
  secret: string,
  region: string,
): { signature: string; signedHeaders: string } {
  const url = new URL(spec.url);
  const canonicalUri = url.pathname
    .split('/')
    .map((seg) => encodeURIComponent(seg).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
  const names = Object.keys(headers)
    .map((h) => h.toLowerCase())
    .filter((h) => h !== 'authorization')
    .sort();
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  const canonicalHeaders = names.map((n) => `${n}:${lower[n].trim()}\n`).join('');
  const signedHeaders = names.join(';');
  const body = typeof spec.body === 'string' ? spec.body : '';
  const canonical = ['POST', canonicalUri, '', canonicalHeaders, signedHeaders, sha256Hex(body)].join('\n');
  const amzDate = lower['x-amz-date'];
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${region}/bedrock/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 'bedrock'), 'aws4_request');
  return { signature: createHmac('sha256', key).update(toSign).digest('hex'), signedHeaders };
}

describe('parseAwsKey', () => {
  it('parses key pairs with and without session token', () => {
    assert.deepEqual(parseAwsKey('AKID::SECRET::eu-west-1'), {
      accessKeyId: 'AKID',
      secretAccessKey: 'SECRET',
      region: 'eu-west-1',
    });
    assert.deepEqual(parseAwsKey('AKID::SECRET::eu-west-1::TOKEN'), {
      accessKeyId: 'AKID',
      secretAccessKey: 'SECRET',
      region: 'eu-west-1',
      sessionToken: 'TOKEN',
    });
  });
  it('treats a key without :: as a Bedrock API key', () => {
    assert.deepEqual(parseAwsKey('ABSKxyz'), { bearer: 'ABSKxyz' });
  });
  it('rejects incomplete key pairs', () => {
    assert.throws(() => parseAwsKey('AKID::SECRET'));
  });
});

describe('bedrockBaseUrl', () => {
  it('uses the region, the default region for bearer keys, and the override', () => {
    assert.equal(bedrockBaseUrl({ apiKey: 'A::S::ap-south-1' }), 'https://bedrock-runtime.ap-south-1.amazonaws.com');
    assert.equal(bedrockBaseUrl({ apiKey: 'bearer-key' }), 'https://bedrock-runtime.us-east-1.amazonaws.com');
    assert.equal(
      bedrockBaseUrl({ apiKey: 'A::S::r', baseUrl: 'http://127.0.0.1:9/bedrock/' }),
      'http://127.0.0.1:9/bedrock',
    );
  });
});

describe('signAws', () => {
  const spec: HttpRequestSpec = {
    method: 'POST',
    url: 'http://127.0.0.1:8123/bedrock/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse',
    headers: { 'content-type': 'application/json' },
    body: '{"messages":[]}',
  };
  const signingDate = new Date('2026-01-02T03:04:05Z');

  it('matches an independent SigV4 computation (prefix path, %3A double-encoded, host with port)', async () => {
    const signed = await signAws(spec, { apiKey: 'AKIDTEST::test-secret::us-east-1' }, { signingDate });
    assert.equal(signed.headers.host, '127.0.0.1:8123');
    assert.equal(signed.headers['x-amz-date'], '20260102T030405Z');
    const ref = referenceSignature(spec, signed.headers, 'test-secret', 'us-east-1');
    assert.equal(
      signed.headers.authorization,
      `AWS4-HMAC-SHA256 Credential=AKIDTEST/20260102/us-east-1/bedrock/aws4_request, SignedHeaders=${ref.signedHeaders}, Signature=${ref.signature}`,
    );
    assert.equal(signed.body, spec.body);
    assert.equal(signed.url, spec.url);
  });

  it('signs the session token header', async () => {
    const signed = await signAws(spec, { apiKey: 'AKIDTEST::test-secret::eu-west-1::TOK' }, { signingDate });
    assert.equal(signed.headers['x-amz-security-token'], 'TOK');
    assert.match(signed.headers.authorization, /SignedHeaders=[^,]*x-amz-security-token/);
    const ref = referenceSignature(spec, signed.headers, 'test-secret', 'eu-west-1');
    assert.ok(signed.headers.authorization.endsWith(`Signature=${ref.signature}`));
  });

  it('does not reuse a signer after the secret of the same key id changed', async () => {
    const a = await signAws(spec, { apiKey: 'AKIDROT::one::us-east-1' }, { signingDate });
    const b = await signAws(spec, { apiKey: 'AKIDROT::two::us-east-1' }, { signingDate });
    assert.notEqual(a.headers.authorization, b.headers.authorization);
    const ref = referenceSignature(spec, b.headers, 'two', 'us-east-1');
    assert.ok(b.headers.authorization.endsWith(`Signature=${ref.signature}`));
  });

  it('sends Bedrock API keys as Bearer', async () => {
    const signed = await signAws(spec, { apiKey: 'ABSK-key' });
    assert.equal(signed.headers.authorization, 'Bearer ABSK-key');
    assert.equal(signed.headers['x-amz-date'], undefined);
  });
});
