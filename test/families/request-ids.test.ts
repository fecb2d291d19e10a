// Request ids the SDKs understand: every answer carries `request-id` (read by the anthropic SDK
// into `_request_id` / `requestID`) and `x-request-id` (the openai SDK's), both equal to
// X-Svc-Request-Id, on successes, errors and streams, through both official SDKs. Upstreams that
// send their own request id (the fake's openai and anthropic wires do) never add a second value:
// the gateway's id wins, so the id a user copies from an SDK finds the gateway's log row.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { safeHeaders } from '../../src/http/header-value.ts';
import { type ProxyEnv, scripted, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';

let env: ProxyEnv;
let openai: OpenAI;
let anthropic: Anthropic;

before(async () => {
  env = await startProxyEnv();
  openai = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: env.gw.adminKey, baseURL: env.gw.url, maxRetries: 0 });
});
after(async () => {
  await env?.close();
});

/** The gateway's id, and the same value (exactly one) under both SDK names. */
function assertIds(headers: Headers): string {
  const id = headers.get('x-svc-request-id') ?? '';
  assert.match(id, /^req_[0-9a-z]+$/);
  assert.equal(headers.get('request-id'), id);
  assert.equal(headers.get('x-request-id'), id);
  return id;
}

/** What the SDK put on the parsed answer (its types show it only on an awaited call, not withResponse's data). */
const sdkId = (data: object): unknown => (data as { _request_id?: unknown })._request_id;

const chat = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }] });
const message = (model: string) => ({ ...chat(model), max_tokens: 32 });

async function logged(id: string): Promise<boolean> {
  const res = await fetch(`${env.gw.url}/manage/v1/logs/${id}`, {
    headers: { authorization: `Bearer ${env.gw.adminKey}` },
  });
  await res.arrayBuffer();
  return res.status === 200;
}

describe('openai SDK', () => {
  test('a completion (passed through to an openai upstream that sends its own x-request-id)', async () => {
    const { data, response, request_id } = await openai.chat.completions
      .create(chat(VENDOR_MODELS.openai))
      .withResponse();
    const id = assertIds(response.headers);
    assert.equal(request_id, id);
    assert.equal(sdkId(data), id);
    assert.ok(await logged(id), 'the id names a log row');
  });

  test('a translated completion and an embedding', async () => {
    const c = await openai.chat.completions.create(chat(VENDOR_MODELS.anthropic));
    assert.match(c._request_id ?? '', /^req_/);
    const { data, response } = await openai.embeddings
      .create({ model: 'openai/text-embedding-3-small', input: 'x' })
      .withResponse();
    assert.equal(sdkId(data), assertIds(response.headers));
  });

  test('a stream', async () => {
    const {
      data: stream,
      response,
      request_id,
    } = await openai.chat.completions.create({ ...chat(VENDOR_MODELS.openai), stream: true }).withResponse();
    const id = assertIds(response.headers);
    assert.equal(request_id, id);
    for await (const _ of stream) {
      // Drained: the id was in the headers before the first chunk.
    }
  });

  test('errors: upstream 429, a refused stream, an unknown model', async () => {
    for (const body of [
      chat(scripted(VENDOR_MODELS.openai, 'fail-429')),
      { ...chat(scripted(VENDOR_MODELS.openai, 'fail-400')), stream: true as const },
      chat('nosuchvendor-model'),
    ]) {
      const err = await openai.chat.completions.create(body).then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assert.equal(err.requestID, assertIds(err.headers as Headers));
    }
  });
});

describe('anthropic SDK', () => {
  test('a message (passed through to an anthropic upstream that sends its own request-id)', async () => {
    const { data, response, request_id } = await anthropic.messages
      .create(message(VENDOR_MODELS.anthropic))
      .withResponse();
    const id = assertIds(response.headers);
    assert.equal(request_id, id);
    assert.equal(sdkId(data), id);
    assert.ok(await logged(id), 'the id names a log row');
  });

  test('a translated message and a count_tokens', async () => {
    const m = await anthropic.messages.create(message(VENDOR_MODELS.openai));
    assert.match(m._request_id ?? '', /^req_/);
    const { data, response } = await anthropic.messages
      .countTokens({ model: VENDOR_MODELS.anthropic, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    assert.equal(sdkId(data), assertIds(response.headers));
  });

  test('a stream, raw and through the MessageStream helper', async () => {
    const { data: raw, response } = await anthropic.messages
      .create({ ...message(VENDOR_MODELS.anthropic), stream: true })
      .withResponse();
    const id = assertIds(response.headers);
    for await (const _ of raw) {
      // Drained.
    }
    const helper = anthropic.messages.stream(message(VENDOR_MODELS.google));
    await helper.finalMessage();
    assert.match(helper.request_id ?? '', /^req_/);
    assert.notEqual(helper.request_id, id);
    assert.ok(await logged(helper.request_id ?? ''), 'the id names a log row');
  });

  test('errors: upstream 429, a refused stream, a bad key', async () => {
    const bad = new Anthropic({ apiKey: 'sy-not-a-key', baseURL: env.gw.url, maxRetries: 0 });
    const calls = [
      () => anthropic.messages.create(message(scripted(VENDOR_MODELS.anthropic, 'fail-429'))),
      () => anthropic.messages.create({ ...message(scripted(VENDOR_MODELS.anthropic, 'fail-400')), stream: true }),
      () => bad.messages.create(message(VENDOR_MODELS.anthropic)),
    ];
    for (const run of calls) {
      const err = await run().then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof Anthropic.APIError, String(err));
      assert.equal(err.requestID, assertIds(err.headers as Headers));
    }
  });
});

describe('every other answer', () => {
  test('management, unknown routes, a refused key, health', async () => {
    const auth = { authorization: `Bearer ${env.gw.adminKey}` };
    for (const [path, headers] of [
      ['/manage/v1/projects', auth],
      ['/v1/no/such/route', auth],
      ['/manage/v1/projects', { authorization: 'Bearer sy-wrong' }],
      ['/healthz', {}],
    ] as const) {
      const res = await fetch(`${env.gw.url}${path}`, { headers });
      await res.arrayBuffer();
      assertIds(res.headers);
    }
  });

  test('replies that write their own head: the log and audit exports, MCP', async () => {
    const auth = { authorization: `Bearer ${env.gw.adminKey}` };
    for (const path of [
      '/manage/v1/logs/export',
      '/manage/v1/logs/export?format=csv',
      '/manage/v1/audit-logs/export',
    ]) {
      const res = await fetch(`${env.gw.url}${path}`, { headers: auth });
      await res.arrayBuffer();
      assert.equal(res.status, 200, path);
      assertIds(res.headers);
    }
    const mcp = await fetch(`${env.gw.url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    await mcp.arrayBuffer();
    assert.equal(mcp.status, 200);
    assertIds(mcp.headers);
  });

  test('an upstream request id in a reply header map is dropped, so ours is the only one', () => {
    const h = safeHeaders({ 'request-id': 'req_up1', 'X-Request-Id': 'req_up2', 'x-svc-model-used': 'm', 'x-id': 'k' });
    assert.deepEqual(h, { 'x-svc-model-used': 'm', 'x-id': 'k' });
  });
});
