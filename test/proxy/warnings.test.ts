// Dropped parameters are said, not silent: what a vendor's wire cannot carry reaches the caller as
// `x-svc-warnings`, and the decision trace of the log row; what SPEC drops silently (the alpha
// pass-through fields off alpha upstreams, `thinking` off native beta upstreams) reaches the trace only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

type Json = Record<string, unknown>;

let env: ProxyEnv;
let alpha: OpenAI;
let beta: Anthropic;

before(async () => {
  env = await startProxyEnv();
  alpha = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
  beta = new Anthropic({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/beta`, maxRetries: 0 });
});
after(async () => {
  await env?.close();
});

/** The decision trace stored with the call's log row (the writer runs shortly after the answer). */
async function loggedTrace(requestId: string | null): Promise<Json> {
  assert.ok(requestId, 'no request id');
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await api(env.gw, 'GET', `/manage/v1/logs/${requestId}/trace`);
    if (r.status === 200) return (r.json as Json).decision_trace as Json;
    if (Date.now() > deadline) assert.fail(`no log row for ${requestId}: ${r.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The body the fake upstream last received on a path containing `fragment`. */
function lastUpstreamBody(fragment: string): Json {
  const hits = env.fake.requests().filter((r) => r.path.includes(fragment));
  assert.ok(hits.length > 0, `no upstream request on ${fragment}`);
  return hits[hits.length - 1].body as Json;
}

/** The SDK's types here do not list the wire's `top_k`; it sends what it is given all the same. */
function withTopK(
  topK: number,
  params: Anthropic.MessageCreateParamsNonStreaming,
): Anthropic.MessageCreateParamsNonStreaming {
  return Object.assign(params, { top_k: topK });
}

const hello = [{ role: 'user' as const, content: 'hello there' }];

describe('x-svc-warnings and the trace, per vendor', () => {
  test('anthropic: penalties and logit_bias are said; seed is noted in the trace only', async () => {
    const { data, response } = await alpha.chat.completions
      .create({
        model: env.models.anthropic,
        messages: hello,
        max_tokens: 20,
        presence_penalty: 0.5,
        logit_bias: { '50256': -100 },
        seed: 7,
      })
      .withResponse();
    assert.equal(data.choices[0].message.content, 'Echo: hello there');
    assert.equal(response.headers.get('x-svc-warnings'), 'dropped:presence_penalty,dropped:logit_bias');
    const sent = lastUpstreamBody('/anthropic/v1/messages');
    for (const key of ['presence_penalty', 'logit_bias', 'seed']) assert.equal(sent[key], undefined, key);
    const trace = await loggedTrace(response.headers.get('x-svc-request-id'));
    assert.deepEqual(trace.warnings, ['dropped:seed', 'dropped:presence_penalty', 'dropped:logit_bias']);
  });

  test('bedrock (Claude over InvokeModel): a temperature above 1 is clamped and said', async () => {
    const { response } = await alpha.chat.completions
      .create({ model: env.models['bedrock-anthropic'], messages: hello, max_tokens: 20, temperature: 1.7 })
      .withResponse();
    assert.equal(response.headers.get('x-svc-warnings'), 'clamped:temperature');
    assert.equal(lastUpstreamBody('/bedrock/model/').temperature, 1);
  });

  test('bedrock (Converse): frequency_penalty is said, parallel_tool_calls only noted', async () => {
    const { response } = await alpha.chat.completions
      .create({
        model: env.models.bedrock,
        messages: hello,
        max_tokens: 20,
        frequency_penalty: 1,
        parallel_tool_calls: false,
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      })
      .withResponse();
    assert.equal(response.headers.get('x-svc-warnings'), 'dropped:frequency_penalty');
    const trace = await loggedTrace(response.headers.get('x-svc-request-id'));
    assert.deepEqual(trace.warnings, ['dropped:frequency_penalty', 'dropped:parallel_tool_calls']);
  });

  test('google, streamed: logit_bias is said in the headers of the stream', async () => {
    const { data: stream, response } = await alpha.chat.completions
      .create({ model: env.models.google, messages: hello, max_tokens: 20, logit_bias: { '7': 3 }, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, 'Echo: hello there');
    assert.equal(response.headers.get('x-svc-warnings'), 'dropped:logit_bias');
    assert.equal((lastUpstreamBody('/google/').generationConfig as Json | undefined)?.logitBias, undefined);
  });

  test('openai from family beta: top_k is said, thinking stays out of the header but is in the trace', async () => {
    const { data, response } = await beta.messages
      .create(
        withTopK(40, {
          model: env.models.openai,
          max_tokens: 3000,
          thinking: { type: 'enabled', budget_tokens: 1024 },
          messages: [{ role: 'user', content: 'hello there' }],
        }),
      )
      .withResponse();
    assert.equal(data.content[0].type, 'text');
    assert.equal(response.headers.get('x-svc-warnings'), 'dropped:top_k');
    assert.equal(lastUpstreamBody('/openai/v1/chat/completions').top_k, undefined);
    const trace = await loggedTrace(response.headers.get('x-svc-request-id'));
    assert.deepEqual(trace.warnings, ['dropped:top_k', 'dropped:thinking']);
  });

  test('azure-openai from family beta: an image in a tool result is said', async () => {
    const { response } = await beta.messages
      .create({
        model: env.models['azure-openai'],
        max_tokens: 50,
        messages: [
          { role: 'user', content: 'take a picture' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'camera', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [
                  { type: 'text', text: 'done' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
                ],
              },
            ],
          },
        ],
        tools: [{ name: 'camera', input_schema: { type: 'object', properties: {} } }],
      })
      .withResponse();
    assert.equal(response.headers.get('x-svc-warnings'), 'dropped:tool_result_image');
  });

  test('together and fireworks take top_k: nothing to say', async () => {
    for (const vendor of ['together', 'fireworks']) {
      const { response } = await beta.messages
        .create(
          withTopK(40, { model: env.models[vendor], max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
        )
        .withResponse();
      assert.equal(response.headers.get('x-svc-warnings'), null, vendor);
      assert.equal(lastUpstreamBody('/chat/completions').top_k, 40, vendor);
    }
  });

  test('same-family pass-through carries everything: no header, no trace warnings', async () => {
    const { response } = await alpha.chat.completions
      .create({ model: env.models.openai, messages: hello, max_tokens: 20, presence_penalty: 0.5, seed: 1 })
      .withResponse();
    assert.equal(response.headers.get('x-svc-warnings'), null);
    assert.equal(lastUpstreamBody('/openai/v1/chat/completions').presence_penalty, 0.5);
    const trace = await loggedTrace(response.headers.get('x-svc-request-id'));
    assert.equal(trace.warnings, undefined);
  });

  test('a penalty out of range is a 400 naming the field, before any upstream call', async () => {
    const err = await alpha.chat.completions
      .create({ model: env.models.anthropic, messages: hello, presence_penalty: 3 })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.APIError, String(err));
    assert.equal(err.status, 400);
    assert.match(err.message, /presence_penalty/);
  });
});
