// Each Anthropic strictness rule: the fake rejects the request with the API's status and error shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../server.ts';

let fake: FakeUpstream;
before(async () => {
  fake = await startFakeUpstream();
});
after(() => fake.close());

const HEADERS: Record<string, string> = {
  'x-api-key': 'sk-ant',
  'anthropic-version': '2023-06-01',
  'content-type': 'application/json',
};
const user = (content: unknown) => ({ role: 'user', content });
const base = { model: 'claude-x', max_tokens: 100, messages: [user('hi')] };
const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} };
const tools = [{ name: 'f', input_schema: { type: 'object' } }];

async function call(body: unknown, headers: Record<string, string> = HEADERS, path = '/v1/messages') {
  const res = await fetch(`${fake.url}/anthropic${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return {
    status: res.status,
    body: (await res.json()) as { type: string; error: { type: string; message: string }; request_id: string },
  };
}

async function rejects(
  body: unknown,
  pattern: RegExp,
  status = 400,
  type = 'invalid_request_error',
  headers = HEADERS,
) {
  const r = await call(body, headers);
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.type, 'error');
  assert.equal(r.body.error.type, type);
  assert.match(r.body.error.message, pattern);
  assert.match(r.body.request_id, /^req_/);
}

describe('anthropic strictness', () => {
  test('accepts the baseline request', async () => {
    assert.equal((await call(base)).status, 200);
  });
  test('auth: missing or scripted-refused key -> 401 authentication_error; Bearer accepted', async () => {
    const { 'x-api-key': _k, ...noKey } = HEADERS;
    await rejects(base, /x-api-key/, 401, 'authentication_error', noKey);
    await rejects(base, /invalid/, 401, 'authentication_error', { ...HEADERS, 'x-api-key': 'bad' });
    await rejects(base, /invalid/, 401, 'authentication_error', { ...noKey, authorization: 'Bearer sk-invalid-1' });
    assert.equal((await call(base, { ...noKey, authorization: 'Bearer sk-ok' })).status, 200);
  });
  test('missing anthropic-version header -> 400', async () => {
    const { 'anthropic-version': _v, ...noVersion } = HEADERS;
    await rejects(base, /anthropic-version/, 400, 'invalid_request_error', noVersion);
  });
  test('missing max_tokens', () => rejects({ ...base, max_tokens: undefined }, /max_tokens: Field required/));
  test('max_tokens <= 0', () => rejects({ ...base, max_tokens: 0 }, /max_tokens/));
  test('empty messages', () => rejects({ ...base, messages: [] }, /messages/));
  test('first message not user', () =>
    rejects({ ...base, messages: [{ role: 'assistant', content: 'hi' }, user('x')] }, /first message/));
  test('invalid role', () => rejects({ ...base, messages: [{ role: 'system', content: 'x' }] }, /role/));
  test('unknown block type', () =>
    rejects({ ...base, messages: [user([{ type: 'video', url: 'x' }])] }, /unknown content block type 'video'/));
  test('empty text block', () => rejects({ ...base, messages: [user([{ type: 'text', text: '' }])] }, /non-empty/));
  test('tool_result without a matching tool_use in the previous assistant turn', async () => {
    await rejects(
      {
        ...base,
        tools,
        messages: [
          user('x'),
          { role: 'assistant', content: [toolUse] },
          user([{ type: 'tool_result', tool_use_id: 'toolu_other', content: 'r' }]),
        ],
      },
      /tool_use_id/,
    );
    await rejects(
      { ...base, messages: [user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'r' }])] },
      /tool_use_id/,
    );
  });
  test('tool_use without tool_result right after', () =>
    rejects(
      { ...base, tools, messages: [user('x'), { role: 'assistant', content: [toolUse] }, user('no results')] },
      /without `tool_result`/,
    ));
  test('tool_use in a user message', () => rejects({ ...base, messages: [user([toolUse])] }, /not allowed/));
  test('thinking block with a missing or wrong signature', async () => {
    const think = (extra: object) => ({
      ...base,
      messages: [
        user('x'),
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', ...extra },
            { type: 'text', text: 'a' },
          ],
        },
        user('y'),
      ],
    });
    await rejects(think({}), /signature/);
    await rejects(think({ signature: 'forged' }), /Invalid `signature`/);
  });
  test('thinking budget rules', async () => {
    await rejects({ ...base, thinking: { type: 'enabled', budget_tokens: 500 } }, /budget_tokens/);
    await rejects({ ...base, max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 2000 } }, /max_tokens/);
    await rejects(
      { ...base, max_tokens: 3000, temperature: 0.5, thinking: { type: 'enabled', budget_tokens: 2000 } },
      /temperature/,
    );
  });
  test('tool without input_schema, tool_choice naming an unknown tool', async () => {
    await rejects({ ...base, tools: [{ name: 'f' }] }, /input_schema/);
    await rejects({ ...base, tools, tool_choice: { type: 'tool', name: 'g' } }, /tool_choice/);
  });
  test('more than 4 cache breakpoints', () => {
    const cc = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } };
    return rejects({ ...base, messages: [user([cc, cc, cc, cc, cc])] }, /maximum of 4/);
  });
  test('unknown top-level fields and metadata keys are refused', async () => {
    await rejects({ ...base, n: 2 }, /n: Extra inputs are not permitted/);
    await rejects({ ...base, metadata: { user_id: 'u', email: 'x' } }, /metadata.email/);
  });
  test('temperature out of range', () => rejects({ ...base, temperature: 1.5 }, /temperature/));
  test('invalid JSON body', async () => {
    const res = await fetch(`${fake.url}/anthropic/v1/messages`, { method: 'POST', headers: HEADERS, body: '{nope' });
    assert.equal(res.status, 400);
  });
  test('count_tokens validates messages too (no max_tokens needed)', async () => {
    const ok = await call({ model: 'claude-x', messages: [user('hi')] }, HEADERS, '/v1/messages/count_tokens');
    assert.deepEqual(ok, { status: 200, body: { input_tokens: 1 } });
    const bad = await call({ model: 'claude-x', messages: [] }, HEADERS, '/v1/messages/count_tokens');
    assert.equal(bad.status, 400);
  });
  test('scripted failures use Anthropic shapes', async () => {
    await rejects({ ...base, model: 'claude-fail-500' }, /fail-500/, 500, 'api_error');
    await rejects({ ...base, model: 'claude-fail-400' }, /fail-400/, 400, 'invalid_request_error');
  });
  test('unknown path -> 404 not_found_error', async () => {
    const r = await call(base, HEADERS, '/v1/nothing');
    assert.equal(r.status, 404);
    assert.equal(r.body.error.type, 'not_found_error');
  });
});
