// The shared model matcher (budget `models`, key `allowed_models`): one regex per list, same meaning as
// testing the name as sent and the name without its `vendor/` prefix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelMatches } from '../../src/util/model-patterns.ts';

test('budget models and key allow-lists share one matcher: with or without vendor/, slugs by name', () => {
  const cases: Array<[string[], string, boolean]> = [
    [['gpt-4o*'], 'gpt-4o-mini', true],
    [['gpt-4o*'], 'openai/gpt-4o-mini', true],
    [['openai/*'], 'openai/gpt-4o', true],
    [['openai/*'], 'gpt-4o', false],
    [['@support*'], '@support-bot', true],
    [['support*'], '@support-bot', false],
    [['gpt-4o*'], '@gpt-4o', false],
    [['claude*'], 'anthropic/claude-3', true],
    [['a.b'], 'axb', false],
    [['m?'], 'm1', true],
    [['x', 'y*'], 'v/yes', true],
    [['together/meta-llama/*'], 'together/meta-llama/L', true],
    [['meta-llama/*'], 'together/meta-llama/L', true],
  ];
  for (const [p, m, want] of cases) assert.equal(modelMatches(p, m), want, `${p} ${m}`);
});
