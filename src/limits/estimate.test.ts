import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeAlphaChat } from '../families/alpha/codec/decode-request.ts';
import { lookupModel } from '../providers/catalog/index.ts';
import { DEFAULT_OUTPUT_CAP, type Estimated, estimateCall } from './estimate.ts';

const chat = (model: string, maxTokens?: number): Estimated => {
  const body = { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: maxTokens };
  return { kind: 'chat', body, modelRequested: model, principal: { orgId: 'org' }, chat: decodeAlphaChat(body) };
};
const none = () => undefined;

test("a max_tokens above the model's catalog maximum is reserved at that maximum", () => {
  const max = lookupModel('openai', 'gpt-4o-mini')?.maxOutput ?? 0;
  assert.ok(max > 0, 'the catalog knows gpt-4o-mini');
  const capped = estimateCall(chat('openai/gpt-4o-mini', 1_735_686), none);
  const atMax = estimateCall(chat('openai/gpt-4o-mini', max), none);
  assert.deepEqual(capped, atMax);
  const smaller = estimateCall(chat('openai/gpt-4o-mini', 100), none);
  assert.ok(smaller.costUsd < atMax.costUsd && smaller.tokens < atMax.tokens);
  // Unknown models have no maximum to trust: the request's figure stands.
  const unknown = estimateCall(chat('openai/gpt-unknown-model', 50_000), none);
  assert.ok(unknown.tokens >= 50_000);
  assert.ok(DEFAULT_OUTPUT_CAP < 50_000);
});
