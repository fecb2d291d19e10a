// The emulation's bodies against real vendor answers (../shared/recorded-wire): for each vendor, the
// key paths of its answers to a text and a tool call, plain and streamed, are those the recordings
// have. A key the vendor never sends (Anthropic's `citations: null` on text blocks, which strict
// clients such as @ai-sdk/anthropic reject) fails here, and so does a key the vendor always sends.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeUpstream, startTestFake } from './helpers.ts';
import {
  anthropicKind,
  bedrockKind,
  chunkKind,
  eventPaths,
  eventstreamEvents,
  jsonPaths,
  pathDiff,
  recorded,
  sseData,
} from './wire-paths.ts';

let fake: FakeUpstream;
before(async () => {
  fake = await startTestFake();
});
after(() => fake.close());

async function post(path: string, body: unknown, headers: Record<string, string>): Promise<Buffer> {
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, bytes.toString('utf8'));
  return bytes;
}
const json = async (path: string, body: unknown, headers: Record<string, string>) =>
  JSON.parse((await post(path, body, headers)).toString('utf8')) as unknown;
const sse = async (path: string, body: unknown, headers: Record<string, string>) =>
  sseData((await post(path, body, headers)).toString('utf8'));
const recordedJson = (file: string) => JSON.parse(recorded(file).toString('utf8')) as unknown;

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const ask = 'weather in Paris?';

describe('openai-wire bodies match the recordings', () => {
  const auth = { authorization: 'Bearer sk-test' };
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: weather } }];
  const chat = (model: string, extra: Record<string, unknown> = {}) => ({
    model,
    messages: [{ role: 'user', content: ask }],
    ...extra,
  });
  const streamed = { stream: true, stream_options: { include_usage: true } };

  test('openai chat completion, text and tool call', async () => {
    const emulated = jsonPaths(
      await json('/openai/v1/chat/completions', chat('gpt-4o-mini'), auth),
      await json('/openai/v1/chat/completions', chat('gpt-4o-mini-tools', { tools }), auth),
    );
    const real = jsonPaths(recordedJson('openai/text.json'), recordedJson('openai/tool.json'));
    assert.deepEqual(pathDiff(emulated, real), { extra: [], missing: [] });
  });

  test('openai chat completion stream, text and tool call', async () => {
    const emulated = eventPaths(
      [
        ...(await sse('/openai/v1/chat/completions', chat('gpt-4o-mini', streamed), auth)),
        ...(await sse('/openai/v1/chat/completions', chat('gpt-4o-mini-tools', { tools, ...streamed }), auth)),
      ],
      chunkKind,
    );
    const real = eventPaths(
      [...sseData(recorded('openai/text.sse').toString()), ...sseData(recorded('openai/tool.sse').toString())],
      chunkKind,
    );
    assert.deepEqual(pathDiff(emulated, real), { extra: [], missing: [] });
  });

  test('azure answers in the openai shape (its content filter report aside)', async () => {
    // The deployment in the path names the model, scripts included.
    const path = '/azure/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21';
    const toolPath = '/azure/openai/deployments/gpt4o-tools/chat/completions?api-version=2024-10-21';
    const key = { 'api-key': 'az-test' };
    const emulated = jsonPaths(await json(path, chat('x'), key), await json(toolPath, chat('x', { tools }), key));
    const real = jsonPaths(recordedJson('openai/text.json'), recordedJson('openai/tool.json'));
    assert.deepEqual(pathDiff(emulated, real), { extra: [], missing: [] });
    const chunks = eventPaths(
      [
        ...(await sse(path, chat('x', streamed), key)),
        ...(await sse(toolPath, chat('x', { tools, ...streamed }), key)),
      ],
      chunkKind,
    );
    const realChunks = eventPaths(
      [...sseData(recorded('openai/text.sse').toString()), ...sseData(recorded('openai/tool.sse').toString())],
      chunkKind,
    );
    const azureFilter = 'Azure opens a stream with its prompt filter report';
    assert.deepEqual(
      pathDiff(chunks, realChunks, {
        extra: Object.fromEntries(
          [...chunks].filter((p) => p.startsWith('chunk.prompt_filter_results')).map((p) => [p, azureFilter]),
        ),
        missing: { 'chunk.obfuscation': 'stream padding is an api.openai.com feature' },
      }),
      { extra: [], missing: [] },
    );
  });
});

describe('anthropic bodies match the recordings', () => {
  const auth = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
  const tools = [{ name: 'website_update', input_schema: weather }];
  const thinking = { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 } };
  const msg = (model: string, extra: Record<string, unknown>) => ({
    model,
    max_tokens: 256,
    messages: [{ role: 'user', content: ask }],
    ...extra,
  });
  // One recording was made with context management on (a beta), the other without.
  const beta = 'answers carry it only with the context-management beta';
  const allow = { missing: { context_management: beta, 'context_management.applied_edits': beta } };

  test('messages: thinking + text, tool use', async () => {
    const emulated = jsonPaths(
      await json('/anthropic/v1/messages', msg('claude-sonnet-4-5', thinking), auth),
      await json('/anthropic/v1/messages', msg('claude-sonnet-4-5-tools', { tools }), auth),
    );
    const real = jsonPaths(recordedJson('anthropic/thinking-text.json'), recordedJson('anthropic/tool-quoted.json'));
    assert.ok(!emulated.has('content[text].citations'), 'a text block without citations has no citations key');
    assert.deepEqual(pathDiff(emulated, real, allow), { extra: [], missing: [] });
  });

  test('message stream: thinking + text, tool use', async () => {
    const emulated = eventPaths(
      [
        ...(await sse('/anthropic/v1/messages', msg('claude-sonnet-4-5', { ...thinking, stream: true }), auth)),
        ...(await sse('/anthropic/v1/messages', msg('claude-sonnet-4-5-tools', { tools, stream: true }), auth)),
      ],
      anthropicKind,
    );
    // vercel/ai keeps the stream as one event JSON per line
    const lines = recorded('anthropic/tool-quoted.chunks.txt').toString().split('\n').filter(Boolean);
    const real = eventPaths(
      [...sseData(recorded('anthropic/thinking-text.sse').toString()), ...lines.map((l) => JSON.parse(l))],
      anthropicKind,
    );
    assert.ok(!emulated.has('content_block_start.content_block<text>.citations'));
    assert.deepEqual(pathDiff(emulated, real), { extra: [], missing: [] });
  });
});

describe('gemini bodies match the recordings', () => {
  const auth = { 'x-goog-api-key': 'gm-test' };
  const tools = [{ functionDeclarations: [{ name: 'weather', parameters: weather }] }];
  const req = (extra: Record<string, unknown> = {}) => ({
    contents: [{ role: 'user', parts: [{ text: ask }] }],
    ...extra,
  });
  const gen = (model: string, method = 'generateContent') => `/google/v1beta/models/${model}:${method}`;

  test('generateContent: text, function call (a thinking model, as recorded)', async () => {
    const emulated = jsonPaths(
      await json(gen('gemini-2.5-flash-thinking'), req(), auth),
      await json(gen('gemini-2.5-flash-thinking-tools'), req({ tools }), auth),
    );
    const real = jsonPaths(recordedJson('google/text.json'), recordedJson('google/tool.json'));
    assert.deepEqual(
      pathDiff(emulated, real, {
        extra: {
          'candidates[].content.parts[].thought':
            'the thinking script asks for thought summaries; the recordings did not',
        },
        missing: {
          'candidates[].finishMessage': 'Gemini 3 explains a function-call finish; 2.x models do not',
          'candidates[].content.parts[].thoughtSignature': 'the emulation signs function calls only',
        },
      }),
      { extra: [], missing: [] },
    );
  });

  test('streamGenerateContent: text, function call', async () => {
    const emulated = eventPaths(
      [
        ...(await sse(`${gen('gemini-2.0-flash', 'streamGenerateContent')}?alt=sse`, req(), auth)),
        ...(await sse(`${gen('gemini-2.0-flash-tools', 'streamGenerateContent')}?alt=sse`, req({ tools }), auth)),
      ],
      chunkKind,
    );
    const real = eventPaths(
      [...sseData(recorded('google/text.sse').toString()), ...sseData(recorded('google/tool.sse').toString())],
      chunkKind,
    );
    assert.deepEqual(pathDiff(emulated, real), { extra: [], missing: [] });
  });
});

describe('bedrock bodies match the recordings', () => {
  const auth = { authorization: 'Bearer br-test' };
  const toolConfig = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: weather } } }] };
  const converse = (extra: Record<string, unknown> = {}) => ({
    messages: [{ role: 'user', content: [{ text: ask }] }],
    ...extra,
  });
  const model = (id: string, op: string) => `/bedrock/model/${encodeURIComponent(id)}/${op}`;

  test('converse: text, tool use', async () => {
    const emulated = jsonPaths(
      await json(model('anthropic.claude-sonnet-4-5-v1:0', 'converse'), converse(), auth),
      await json(model('anthropic.claude-sonnet-4-5-tools-v1:0', 'converse'), converse({ toolConfig }), auth),
    );
    const real = jsonPaths(recordedJson('bedrock/text.json'), recordedJson('bedrock/tool.json'));
    assert.deepEqual(pathDiff(emulated, real), { extra: [], missing: [] });
  });

  test('converse-stream: text, reasoning, tool use', async () => {
    const stream = async (id: string, body: unknown) =>
      eventstreamEvents(await post(model(id, 'converse-stream'), body, auth));
    const emulated = eventPaths(
      [
        ...(await stream('amazon.nova-micro-v1:0', converse())),
        ...(await stream('anthropic.claude-sonnet-4-thinking-v1:0', converse())),
        ...(await stream('amazon.nova-micro-tools-v1:0', converse({ toolConfig }))),
      ],
      bedrockKind,
    );
    const real = eventPaths(
      ['text', 'reasoning', 'tool'].flatMap((f) => eventstreamEvents(recorded(`bedrock/${f}.eventstream`))),
      bedrockKind,
    );
    assert.deepEqual(pathDiff(emulated, real), { extra: [], missing: [] });
  });
});
