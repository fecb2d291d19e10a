// Starting points for a new routing config, one per strategy (the README's examples). Models are
// written as vendor/model so that they work with any stored credential of that vendor.

export const TEMPLATES: Record<string, Record<string, unknown>> = {
  single: { name: 'Single', strategy: 'single', config: { model: 'openai/gpt-4o-mini' } },
  fallback: {
    name: 'Fallback',
    strategy: 'fallback',
    config: {
      attempts: [
        { model: 'openai/gpt-4o', timeout_ms: 5000 },
        { model: 'anthropic/claude-sonnet-4-5', timeout_ms: 10000 },
      ],
      retry_on: ['429', '5xx', 'timeout'],
    },
  },
  cost_optimized: {
    name: 'Cheapest',
    strategy: 'cost_optimized',
    config: { models: ['openai/gpt-4o', 'openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5'] },
  },
  latency_optimized: {
    name: 'Fastest',
    strategy: 'latency_optimized',
    config: { models: ['openai/gpt-4o-mini', 'google/gemini-2.0-flash'], exploration: 0.05 },
  },
  ensemble: {
    name: 'Ensemble',
    strategy: 'ensemble',
    config: { models: ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5'], select: 'fastest' },
  },
  ab_test: {
    name: 'AB test',
    strategy: 'ab_test',
    config: {
      variants: [
        { name: 'control', weight: 90, model: 'openai/gpt-4o' },
        { name: 'candidate', weight: 10, model: 'anthropic/claude-sonnet-4-5' },
      ],
    },
  },
  cascade: {
    name: 'Cascade',
    strategy: 'cascade',
    config: { steps: ['openai/gpt-4o-mini', 'openai/gpt-4o'] },
  },
  custom_rules: {
    name: 'Rules',
    strategy: 'custom_rules',
    config: {
      rules: [
        { name: 'gold', when: { tags: { tier: 'gold' } }, target: ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5'] },
      ],
      default: 'openai/gpt-4o-mini',
    },
  },
};

export function templateText(strategy: string): string {
  return JSON.stringify(TEMPLATES[strategy] ?? TEMPLATES.single, null, 2);
}
