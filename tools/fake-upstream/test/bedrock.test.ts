// Drives the Bedrock emulation with @aws-sdk/client-bedrock-runtime (SigV4 against the fake).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { countTokens } from '../script.ts';
import { type FakeUpstream, startFakeUpstream } from '../server.ts';

let fake: FakeUpstream;
let client: BedrockRuntimeClient;

function makeClient(secretAccessKey: string) {
  return new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: `${fake.url}/bedrock`,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey },
    maxAttempts: 1,
    // The client defaults to HTTP/2; the fake (like any plain-HTTP endpoint) speaks HTTP/1.1.
    requestHandler: new NodeHttpHandler(),
  });
}

before(async () => {
  fake = await startFakeUpstream();
  client = makeClient('test-secret');
});
after(() => {
  client.destroy();
  return fake.close();
});

const SONNET = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const tools: ConverseCommandInput['toolConfig'] = {
  tools: [
    {
      toolSpec: {
        name: 'get_weather',
        inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
      },
    },
    { toolSpec: { name: 'get_time', inputSchema: { json: { type: 'object', properties: {} } } } },
  ],
};
const decoder = new TextDecoder();

describe('bedrock via the official AWS SDK', () => {
  test('Converse: text, usage, model id with %3A signed and routed', async () => {
    fake.clearRequests();
    const r = await client.send(
      new ConverseCommand({ modelId: SONNET, messages: [{ role: 'user', content: [{ text: 'Hi Bedrock' }] }] }),
    );
    assert.deepEqual(r.output?.message?.content, [{ text: 'Echo: Hi Bedrock' }]);
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(r.usage?.inputTokens, countTokens('Hi Bedrock'));
    assert.equal(r.usage?.outputTokens, countTokens('Echo: Hi Bedrock'));
    const [rec] = fake.requests();
    assert.equal(rec.path, '/bedrock/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    assert.match(rec.headers.authorization, /^AWS4-HMAC/);
  });

  test('wrong secret -> 403 InvalidSignatureException', async () => {
    const wrong = makeClient('not-the-secret');
    await assert.rejects(
      wrong.send(new ConverseCommand({ modelId: SONNET, messages: [{ role: 'user', content: [{ text: 'x' }] }] })),
      (e: unknown) => {
        const err = e as { name: string; $metadata: { httpStatusCode: number } };
        return err.name === 'InvalidSignatureException' && err.$metadata.httpStatusCode === 403;
      },
    );
    wrong.destroy();
  });

  test('Converse tools (parallel) then toolResult answers text', async () => {
    const r = await client.send(
      new ConverseCommand({
        modelId: 'anthropic.claude-tools-2',
        toolConfig: tools,
        messages: [{ role: 'user', content: [{ text: 'Lima' }] }],
      }),
    );
    assert.equal(r.stopReason, 'tool_use');
    const uses = r.output?.message?.content?.map((b) => b.toolUse) ?? [];
    assert.deepEqual(
      uses.map((u) => [u?.name, u?.input]),
      [
        ['get_weather', { city: 'Lima' }],
        ['get_time', { query: 'Lima' }],
      ],
    );
    assert.match(uses[0]?.toolUseId ?? '', /^tooluse_/);
    const follow = await client.send(
      new ConverseCommand({
        modelId: 'anthropic.claude-tools-2',
        toolConfig: tools,
        messages: [
          { role: 'user', content: [{ text: 'Lima' }] },
          { role: 'assistant', content: r.output?.message?.content ?? [] },
          {
            role: 'user',
            content: uses.map((u) => ({ toolResult: { toolUseId: u?.toolUseId ?? '', content: [{ text: '20C' }] } })),
          },
        ],
      }),
    );
    assert.deepEqual(follow.output?.message?.content, [{ text: 'Echo: 20C\n20C' }]);
  });

  test('ConverseStream: events parse, text reassembles, metadata usage arrives last', async () => {
    const r = await client.send(
      new ConverseStreamCommand({
        modelId: 'anthropic.claude-thinking-tools',
        toolConfig: tools,
        messages: [{ role: 'user', content: [{ text: 'Quito' }] }],
      }),
    );
    const kinds: string[] = [];
    let reasoning = '';
    let signature = '';
    let toolInput = '';
    let usage: { outputTokens?: number } | undefined;
    for await (const ev of r.stream ?? []) {
      const kind = Object.keys(ev).find((k) => k !== '$unknown') ?? '';
      kinds.push(kind);
      const d = ev.contentBlockDelta?.delta;
      reasoning += d?.reasoningContent?.text ?? '';
      signature += d?.reasoningContent?.signature ?? '';
      toolInput += d?.toolUse?.input ?? '';
      if (ev.metadata) usage = ev.metadata.usage;
    }
    assert.equal(kinds[0], 'messageStart');
    assert.deepEqual(kinds.slice(-2), ['messageStop', 'metadata']);
    assert.ok(kinds.includes('contentBlockStart'));
    assert.equal(reasoning, 'Considering the request: Quito');
    assert.ok(signature.length > 10);
    assert.deepEqual(JSON.parse(toolInput), { city: 'Quito' });
    assert.equal(usage?.outputTokens, countTokens(reasoning) + countTokens(toolInput));
  });

  test('ConverseStream midstream-error throws a modeled exception', async () => {
    const r = await client.send(
      new ConverseStreamCommand({
        modelId: 'anthropic.claude-midstream-error',
        messages: [{ role: 'user', content: [{ text: 'x' }] }],
      }),
    );
    await assert.rejects(
      async () => {
        for await (const _ of r.stream ?? []) {
          /* drain */
        }
      },
      (e: unknown) => (e as { name: string }).name === 'ModelStreamErrorException',
    );
  });

  test('InvokeModel with an Anthropic body answers a Message', async () => {
    const r = await client.send(
      new InvokeModelCommand({
        modelId: SONNET,
        contentType: 'application/json',
        accept: 'application/json',
        body: JSON.stringify({
          anthropic_version: 'bedrock-2023-05-31',
          max_tokens: 50,
          messages: [{ role: 'user', content: 'invoke me' }],
        }),
      }),
    );
    const msg = JSON.parse(decoder.decode(r.body));
    assert.equal(msg.type, 'message');
    assert.deepEqual(msg.content, [{ type: 'text', text: 'Echo: invoke me' }]);
    assert.equal(msg.usage.input_tokens, countTokens('invoke me'));
  });

  test('InvokeModelWithResponseStream: chunk events decode to the Anthropic sequence', async () => {
    const r = await client.send(
      new InvokeModelWithResponseStreamCommand({
        modelId: SONNET,
        contentType: 'application/json',
        body: JSON.stringify({
          anthropic_version: 'bedrock-2023-05-31',
          max_tokens: 50,
          messages: [{ role: 'user', content: 'stream invoke' }],
        }),
      }),
    );
    const events: Array<{ type: string; delta?: { text?: string }; [k: string]: unknown }> = [];
    for await (const ev of r.body ?? []) if (ev.chunk?.bytes) events.push(JSON.parse(decoder.decode(ev.chunk.bytes)));
    assert.equal(events[0].type, 'message_start');
    assert.equal(events.at(-1)?.type, 'message_stop');
    assert.ok(events.at(-1)?.['amazon-bedrock-invocationMetrics']);
    const text = events.map((e) => (e.type === 'content_block_delta' ? (e.delta?.text ?? '') : '')).join('');
    assert.equal(text, 'Echo: stream invoke');
  });

  test('Titan and Cohere embeddings', async () => {
    const titan = await client.send(
      new InvokeModelCommand({
        modelId: 'amazon.titan-embed-text-v2:0',
        contentType: 'application/json',
        body: JSON.stringify({ inputText: 'embed me', dimensions: 256, normalize: true }),
      }),
    );
    const t = JSON.parse(decoder.decode(titan.body));
    assert.equal(t.embedding.length, 256);
    assert.equal(t.inputTextTokenCount, countTokens('embed me'));
    const cohere = await client.send(
      new InvokeModelCommand({
        modelId: 'cohere.embed-english-v3',
        contentType: 'application/json',
        body: JSON.stringify({ texts: ['a', 'b'], input_type: 'search_document' }),
      }),
    );
    const c = JSON.parse(decoder.decode(cohere.body));
    assert.equal(c.embeddings.length, 2);
    assert.equal(c.embeddings[0].length, 1024);
    assert.equal(c.response_type, 'embeddings_floats');
    assert.deepEqual(c.texts, ['a', 'b']);
  });

  test('scripted fail-429 -> ThrottlingException', async () => {
    await assert.rejects(
      client.send(
        new ConverseCommand({
          modelId: 'anthropic.claude-fail-429',
          messages: [{ role: 'user', content: [{ text: 'x' }] }],
        }),
      ),
      (e: unknown) => (e as { name: string }).name === 'ThrottlingException',
    );
  });

  test('cachePoint: write then read', async () => {
    const input: ConverseCommandInput = {
      modelId: SONNET,
      system: [{ text: 'A long and stable system prompt. '.repeat(10) }, { cachePoint: { type: 'default' } }],
      messages: [{ role: 'user', content: [{ text: 'q' }] }],
    };
    const first = await client.send(new ConverseCommand(input));
    const second = await client.send(new ConverseCommand(input));
    const sys = countTokens('A long and stable system prompt. '.repeat(10));
    assert.equal(first.usage?.cacheWriteInputTokens, sys);
    assert.equal(second.usage?.cacheReadInputTokens, sys);
    assert.equal(second.usage?.inputTokens, countTokens('q'));
  });
});
