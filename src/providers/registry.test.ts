import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptedModelForms, parseModelRef, resolveDirectModel } from './registry.ts';

describe('model names', () => {
  it('takes LiteLLM prefixes as the vendor they name, the rest as the upstream model', () => {
    const cases: Array<[string, string, string]> = [
      ['gemini/gemini-2.0-flash', 'google', 'gemini-2.0-flash'],
      ['vertex_ai/gemini-2.5-pro', 'google', 'gemini-2.5-pro'],
      ['azure/my-gpt4o-deployment', 'azure-openai', 'my-gpt4o-deployment'],
      ['bedrock/anthropic.claude-3-5-haiku-20241022-v1:0', 'bedrock', 'anthropic.claude-3-5-haiku-20241022-v1:0'],
      ['together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo', 'together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'],
      [
        'fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct',
        'fireworks',
        'accounts/fireworks/models/llama-v3p1-70b-instruct',
      ],
    ];
    for (const [name, vendor, model] of cases) {
      assert.deepEqual(resolveDirectModel(name), { vendor, vendorAsSent: vendor, model }, name);
    }
  });

  it('keeps vendor ids and their numbered aliases as they were', () => {
    assert.deepEqual(resolveDirectModel('vendor_3/gemini-2.0-flash'), {
      vendor: 'google',
      vendorAsSent: 'vendor_3',
      model: 'gemini-2.0-flash',
    });
    assert.deepEqual(parseModelRef('@support'), { kind: 'config', slug: 'support' });
  });

  it('refuses what it cannot route, naming the unknown prefix and every accepted one', () => {
    // Claude on Vertex is not a vendor served here; an empty model is no model.
    for (const name of ['vertex_ai/claude-3-5-sonnet', 'gemini/', 'huggingface/llama', 'mistral-large']) {
      assert.equal(parseModelRef(name), undefined, name);
    }
    const hint = acceptedModelForms('huggingface/llama');
    assert.match(hint, /^"huggingface\/" names no vendor; /);
    for (const p of ['gemini/', 'vertex_ai/', 'azure/', 'together_ai/', 'fireworks_ai/', 'openai', 'bedrock']) {
      assert.ok(hint.includes(p), `${p} in ${hint}`);
    }
    assert.doesNotMatch(acceptedModelForms('gemini/'), /names no vendor/);
    assert.doesNotMatch(acceptedModelForms('mistral-large'), /names no vendor/);
  });
});
