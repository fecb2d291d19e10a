// A price override reaches every place a cost is computed or estimated (issue 36 item 7): the log
// detail's breakdown, the budget reservation, pass-through batch costs, token-billed images and the
// responses endpoint. Each is checked against the override's own rates, far from any list price.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { decodeAlphaChat } from '../../src/families/alpha/codec/decode-request.ts';
import { type Estimated, estimateCall } from '../../src/limits/estimate.ts';
import type { ModelPrice } from '../../src/providers/catalog/index.ts';
import { imageCost } from '../../src/providers/catalog/media.ts';
import { logRows, pollUntil } from '../batches/helpers.ts';
import { logRow } from '../files/helpers.ts';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';

type Json = Record<string, unknown>;
const IN = 1000;
const OUT = 3000;
const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} != ${b}`);

test('the budget reservation prices a candidate at the org override, the output cap still the catalog one', () => {
  const call = (org: string): Estimated => {
    const body = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1000 };
    return { kind: 'chat', body, modelRequested: body.model, principal: { orgId: org }, chat: decodeAlphaChat(body) };
  };
  const noConfig = () => undefined;
  const override: ModelPrice = { input: IN, output: OUT, cacheRead: 0, cacheWrite: 0 };
  const overrides = (org: string) => (org === 'org_a' ? override : undefined);
  const listed = estimateCall(call('org_b'), noConfig, overrides);
  const priced = estimateCall(call('org_a'), noConfig, overrides);
  assert.equal(priced.tokens, listed.tokens);
  near(priced.costUsd, (listed.tokens - 1000) * (IN / 1e6) + 1000 * (OUT / 1e6), 'reservation');
  assert.ok(priced.costUsd > listed.costUsd * 100, 'far above the list price');
});

test('a token-billed image model is priced at the override; per-image models keep the catalog', () => {
  const usage = { input: 10, output: 272 };
  const override: ModelPrice = { input: IN, output: OUT, cacheRead: IN, cacheWrite: IN };
  near(imageCost('openai', 'gpt-image-1', { n: 1, usage }, override) ?? -1, (10 * IN + 272 * OUT) / 1e6, 'image');
  assert.equal(imageCost('openai', 'dall-e-3', { n: 1, size: '1024x1024' }), 0.04);
});

describe('an override through real calls', () => {
  let env: ProxyEnv;
  const price = async (model: string) => {
    const r = await api(env.gw, 'POST', '/manage/v1/model-prices', { model, input: IN, output: OUT });
    assert.equal(r.status, 200, JSON.stringify(r.json));
  };
  before(async () => {
    env = await startProxyEnv();
    await price(VENDOR_MODELS.openai);
    await price(VENDOR_MODELS.anthropic);
    await price('openai/gpt-image-1');
  });
  after(async () => {
    await env.close();
  });
  const openai = () => new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });

  test('the log detail splits the cost at the override', async () => {
    const { data, response } = await openai()
      .chat.completions.create({ model: VENDOR_MODELS.openai, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const u = data.usage;
    assert.ok(u && u.prompt_tokens > 0);
    const log = await logRow(env.gw, response.headers.get('x-svc-request-id'));
    const cost = log.cost as Json;
    near(cost.input_usd as number, (u.prompt_tokens * IN) / 1e6, 'input_usd');
    near(cost.output_usd as number, (u.completion_tokens * OUT) / 1e6, 'output_usd');
    assert.equal(cost.other_attempts_usd, 0);
  });

  test('images: a token-billed model at the override; a per-image model cannot take one', async () => {
    const { response } = await openai()
      .images.generate({ model: 'openai/gpt-image-1', prompt: 'a lighthouse' })
      .withResponse();
    const log = await logRow(env.gw, response.headers.get('x-svc-request-id'));
    const want = ((log.input_tokens as number) * IN + (log.output_tokens as number) * OUT) / 1e6;
    assert.ok((log.output_tokens as number) > 0);
    near(Number(response.headers.get('x-svc-cost-usd')), want, 'image header');
    near(log.cost_usd as number, want, 'image log');
    const refused = await api(env.gw, 'POST', '/manage/v1/model-prices', {
      model: 'openai/dall-e-3',
      input: 1,
      output: 1,
    });
    assert.equal(refused.status, 400);
    assert.match(JSON.stringify(refused.json), /billed per image/);
  });

  test('responses: the cost header uses the override', async () => {
    const { data, response } = await openai()
      .responses.create({ model: VENDOR_MODELS.openai, input: 'hi' })
      .withResponse();
    const u = data.usage;
    assert.ok(u && u.input_tokens > 0);
    const want = (u.input_tokens * IN + u.output_tokens * OUT) / 1e6;
    near(Number(response.headers.get('x-svc-cost-usd')), want, 'responses header');
  });

  test('a pass-through batch is billed at half the override', async () => {
    const anthropic = new Anthropic({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/beta`, maxRetries: 0 });
    const created = await anthropic.messages.batches.create({
      requests: [
        {
          custom_id: 'one',
          params: { model: VENDOR_MODELS.anthropic, max_tokens: 32, messages: [{ role: 'user', content: 'first' }] },
        },
      ],
    });
    await pollUntil(
      () => anthropic.messages.batches.retrieve(created.id),
      (b) => b.processing_status === 'ended',
    );
    const lines = [];
    for await (const l of await anthropic.messages.batches.results(created.id)) lines.push(l);
    const result = lines[0]?.result;
    assert.ok(result?.type === 'succeeded');
    const u = result.message.usage;
    await anthropic.messages.batches.retrieve(created.id);
    const [row] = await logRows(env, 'batch_execution');
    assert.ok(row);
    near(row.cost_usd as number, ((u.input_tokens * IN + u.output_tokens * OUT) / 1e6) * 0.5, 'batch');
  });
});
