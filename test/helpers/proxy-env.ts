// A gateway wired to the fake upstream with one stored credential per vendor, for end-to-end tests.
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { type Gateway, type GatewayOptions, startGateway } from './gateway.ts';

export interface ProxyEnv {
  fake: FakeUpstream;
  gw: Gateway;
  /** Provider credential id per vendor. */
  providers: Record<string, string>;
  /** The model each vendor is exercised with (caller's form, `vendor/model`). */
  models: Record<string, string>;
  close(): Promise<void>;
}

export const STORED_KEY = 'sk-stored-0000000000000000';

export function vendorCredentials(fakeUrl: string): Array<{ vendor: string; api_key: string; base_url: string }> {
  return [
    { vendor: 'openai', api_key: STORED_KEY, base_url: `${fakeUrl}/openai/v1` },
    { vendor: 'anthropic', api_key: STORED_KEY, base_url: `${fakeUrl}/anthropic` },
    { vendor: 'google', api_key: STORED_KEY, base_url: `${fakeUrl}/google` },
    { vendor: 'azure-openai', api_key: STORED_KEY, base_url: `${fakeUrl}/azure` },
    { vendor: 'bedrock', api_key: 'AKIATESTKEY000000001::test-secret::us-east-1', base_url: `${fakeUrl}/bedrock` },
    { vendor: 'together', api_key: STORED_KEY, base_url: `${fakeUrl}/together/v1` },
    { vendor: 'fireworks', api_key: STORED_KEY, base_url: `${fakeUrl}/fireworks/inference/v1` },
  ];
}

export const VENDOR_MODELS: Record<string, string> = {
  openai: 'openai/gpt-4o-mini',
  anthropic: 'anthropic/claude-3-5-haiku-latest',
  google: 'google/gemini-2.0-flash',
  'azure-openai': 'azure-openai/gpt-4o-mini',
  bedrock: 'bedrock/amazon.nova-lite-v1:0',
  'bedrock-anthropic': 'bedrock/anthropic.claude-3-5-haiku-20241022-v1:0',
  together: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo',
  fireworks: 'fireworks/accounts/fireworks/models/llama-v3p1-70b-instruct',
};

/** Inserts a scripted suffix into a `vendor/model` name (the fake reads behaviour from the model). */
export function scripted(model: string, script: string): string {
  return `${model}-${script}`;
}

export async function api(
  gw: Gateway,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gw.adminKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

export async function startProxyEnv(opts: GatewayOptions = {}): Promise<ProxyEnv> {
  const fake = await startFakeUpstream({ port: 0, batchStepMs: 50 });
  const gw = await startGateway(opts);
  const providers: Record<string, string> = {};
  for (const c of vendorCredentials(fake.url)) {
    const r = await api(gw, 'POST', '/manage/v1/providers', { ...c, name: `${c.vendor} (fake)` });
    if (r.status !== 200 && r.status !== 201)
      throw new Error(`provider create failed: ${r.status} ${JSON.stringify(r.json)}`);
    providers[c.vendor] = (r.json as { id: string }).id;
  }
  return {
    fake,
    gw,
    providers,
    models: VENDOR_MODELS,
    async close() {
      await gw.close();
      await fake.close();
    },
  };
}
