// What `switchyard demo` sets up, through the management API over HTTP exactly as a user would: one
// provider credential per vendor, pointed at the fake upstream, and one routing config per strategy.
// Rerunning against a kept --data-dir reuses what is there (the fake's port may have changed, so
// credentials get the new base URL).

export interface DemoVendor {
  vendor: string;
  /** Path of the vendor's emulation on the fake upstream. */
  mount: string;
  apiKey: string;
}

/** The fake accepts any key that starts with `sk-`, and Bedrock keys signed with its secret. */
export const DEMO_VENDORS: readonly DemoVendor[] = [
  { vendor: 'openai', mount: '/openai/v1', apiKey: 'sk-demo-openai' },
  { vendor: 'anthropic', mount: '/anthropic', apiKey: 'sk-demo-anthropic' },
  { vendor: 'google', mount: '/google', apiKey: 'sk-demo-google' },
  { vendor: 'azure-openai', mount: '/azure', apiKey: 'sk-demo-azure' },
  { vendor: 'bedrock', mount: '/bedrock', apiKey: 'AKIADEMO000000000000::test-secret::us-east-1' },
  { vendor: 'together', mount: '/together/v1', apiKey: 'sk-demo-together' },
  { vendor: 'fireworks', mount: '/fireworks/inference/v1', apiKey: 'sk-demo-fireworks' },
];

export interface DemoConfig {
  slug: string;
  name: string;
  strategy: string;
  config: Record<string, unknown>;
  /** One line for the printed overview. */
  summary: string;
}

const BEDROCK_CLAUDE = 'bedrock/anthropic.claude-3-5-haiku-20241022-v1:0';
const TOGETHER_LLAMA = 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo';
const FIREWORKS_LLAMA = 'fireworks/accounts/fireworks/models/llama-v3p1-70b-instruct';

// Between them the configs reach all seven vendors. The fallback's first attempt carries the fake's
// `fail-500` script so that the fallback is visible, not just configured.
export const DEMO_CONFIGS: readonly DemoConfig[] = [
  {
    slug: 'single',
    name: 'Demo: single',
    strategy: 'single',
    config: { model: 'openai/gpt-4o-mini' },
    summary: 'openai/gpt-4o-mini',
  },
  {
    slug: 'fallback',
    name: 'Demo: fallback',
    strategy: 'fallback',
    config: {
      attempts: [
        { model: 'openai/gpt-4o-fail-500', timeout_ms: 5000 },
        { model: 'anthropic/claude-sonnet-4-5', timeout_ms: 10000 },
      ],
      retry_on: ['429', '5xx', 'timeout'],
    },
    summary: 'openai/gpt-4o-fail-500 (scripted to fail) -> anthropic/claude-sonnet-4-5',
  },
  {
    slug: 'cost-optimized',
    name: 'Demo: cost optimized',
    strategy: 'cost_optimized',
    config: { models: ['openai/gpt-4o', 'openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5'] },
    summary: 'cheapest of openai/gpt-4o, openai/gpt-4o-mini, anthropic/claude-haiku-4-5',
  },
  {
    slug: 'latency-optimized',
    name: 'Demo: latency optimized',
    strategy: 'latency_optimized',
    config: { models: ['openai/gpt-4o-mini', 'google/gemini-2.0-flash', FIREWORKS_LLAMA], exploration: 0.05 },
    summary: 'fastest recent p50 of openai, google, fireworks',
  },
  {
    slug: 'ensemble',
    name: 'Demo: ensemble',
    strategy: 'ensemble',
    config: { models: [TOGETHER_LLAMA, FIREWORKS_LLAMA], select: 'fastest' },
    summary: 'together and fireworks in parallel, first answer wins',
  },
  {
    slug: 'ab-test',
    name: 'Demo: A/B test',
    strategy: 'ab_test',
    config: {
      variants: [
        { name: 'control', weight: 50, model: 'azure-openai/gpt-4o-mini' },
        { name: 'candidate', weight: 50, model: BEDROCK_CLAUDE },
      ],
    },
    summary: 'azure-openai 50% / bedrock 50%, sticky per X-Svc-User-Id',
  },
  {
    slug: 'cascade',
    name: 'Demo: cascade',
    strategy: 'cascade',
    config: { steps: ['google/gemini-2.0-flash', 'anthropic/claude-sonnet-4-5'] },
    summary: 'google/gemini-2.0-flash, escalates to anthropic when the answer is rejected',
  },
  {
    slug: 'custom-rules',
    name: 'Demo: custom rules',
    strategy: 'custom_rules',
    config: {
      rules: [
        { name: 'gold', when: { tags: { tier: 'gold' } }, target: ['anthropic/claude-sonnet-4-5', 'openai/gpt-4o'] },
        { name: 'long', when: { min_tokens: 50000 }, target: 'google/gemini-2.5-pro' },
      ],
      default: 'openai/gpt-4o-mini',
    },
    summary: 'tag tier=gold -> anthropic; long prompts -> google; else openai/gpt-4o-mini',
  },
];

export interface Seeded {
  /** Credential id per vendor. */
  providers: Array<{ vendor: string; id: string }>;
  configs: readonly DemoConfig[];
}

interface Listed {
  data: Array<Record<string, unknown>>;
}

/** A thin management-API client: JSON in, JSON out, any non-2xx is an error naming the call. */
function managementClient(gatewayUrl: string, adminKey: string) {
  return async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  };
}

function credentialName(vendor: string): string {
  return `${vendor} (demo)`;
}

export async function seedDemo(gatewayUrl: string, adminKey: string, fakeUrl: string): Promise<Seeded> {
  const call = managementClient(gatewayUrl, adminKey);
  const existing = (await call<Listed>('GET', '/manage/v1/providers?limit=200')).data;
  const providers: Seeded['providers'] = [];
  for (const v of DEMO_VENDORS) {
    const baseUrl = `${fakeUrl}${v.mount}`;
    const found = existing.find((p) => p.vendor === v.vendor && p.name === credentialName(v.vendor));
    if (found && typeof found.id === 'string') {
      if (found.base_url !== baseUrl) {
        await call('PATCH', `/manage/v1/providers/${found.id}`, { base_url: baseUrl });
      }
      providers.push({ vendor: v.vendor, id: found.id });
      continue;
    }
    const made = await call<{ id: string }>('POST', '/manage/v1/providers', {
      vendor: v.vendor,
      name: credentialName(v.vendor),
      api_key: v.apiKey,
      base_url: baseUrl,
    });
    providers.push({ vendor: v.vendor, id: made.id });
  }

  const slugs = new Set(
    (await call<Listed>('GET', '/manage/v1/routing-configs?limit=200')).data.map((c) => String(c.slug)),
  );
  for (const c of DEMO_CONFIGS) {
    if (slugs.has(c.slug)) continue;
    await call('POST', '/manage/v1/routing-configs', {
      name: c.name,
      slug: c.slug,
      strategy: c.strategy,
      config: c.config,
    });
  }
  return { providers, configs: DEMO_CONFIGS };
}
