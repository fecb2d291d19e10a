// Every OpenAI strictness rule: the fake rejects what the real API rejects, with its status and error shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type FakeUpstream, openaiClient, raw, startTestFake } from './helpers.ts';

let fake: FakeUpstream;

before(async () => {
  fake = await startTestFake();
});
after(() => fake.close());

interface OaiErrorShape {
  error: { message: string; type: string; param: string | null; code: string | null };
}

function assertOaiError(json: unknown, param?: string | null, code?: string | null): OaiErrorShape['error'] {
  const e = (json as OaiErrorShape).error;
  assert.deepEqual(Object.keys(e).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(typeof e.message, 'string');
  if (param !== undefined) assert.equal(e.param, param);
  if (code !== undefined) assert.equal(e.code, code);
  return e;
}

async function chat400(body: unknown, param?: string | null, code?: string | null): Promise<OaiErrorShape['error']> {
  const res = await raw(fake, 'POST', '/openai/v1/chat/completions', body);
  assert.equal(res.status, 400, res.text);
  return assertOaiError(res.json, param, code);
}

const user = { role: 'user', content: 'hi' };

describe('auth and routing', () => {
  test('missing, non-Bearer and scripted-refused keys get 401 invalid_api_key', async () => {
    const body = { model: 'gpt-4o', messages: [user] };
    for (const headers of [{}, { authorization: 'sk-test' }, { authorization: 'Bearer sk-bad-1' }] as Array<
      Record<string, string>
    >) {
      const res = await raw(fake, 'POST', '/openai/v1/chat/completions', body, headers);
      assert.equal(res.status, 401);
      assertOaiError(res.json, null, 'invalid_api_key');
    }
    await assert.rejects(
      openaiClient(fake, '/openai/v1', 'bad-key').chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
      }),
      OpenAI.AuthenticationError,
    );
  });

  test('unknown path or method: 404 in the OpenAI shape', async () => {
    const res = await raw(fake, 'POST', '/together/v1/nothing/here', {});
    assert.equal(res.status, 404);
    assert.match(assertOaiError(res.json, null, null).message, /Invalid URL \(POST \/together\/v1\/nothing\/here\)/);
    assert.equal((await raw(fake, 'DELETE', '/openai/v1/chat/completions')).status, 404);
  });
});

describe('chat completions validation (400)', () => {
  test('body that is not JSON', async () => {
    await chat400('{not json', null, null);
  });
  test('missing model', async () => {
    assert.match((await chat400({ messages: [user] }, null)).message, /must provide a model/);
  });
  test('missing messages', async () => {
    await chat400({ model: 'gpt-4o' }, 'messages', 'missing_required_parameter');
  });
  test('empty messages', async () => {
    await chat400({ model: 'gpt-4o', messages: [] }, 'messages', 'empty_array');
  });
  test('invalid role', async () => {
    await chat400(
      { model: 'gpt-4o', messages: [{ role: 'robot', content: 'x' }] },
      'messages[0].role',
      'invalid_value',
    );
  });
  test('tool message without a preceding assistant tool_calls', async () => {
    const e = await chat400(
      { model: 'gpt-4o', messages: [user, { role: 'tool', tool_call_id: 'call_1', content: 'r' }] },
      'messages.[1].role',
    );
    assert.match(e.message, /must be a response to a preceeding message with 'tool_calls'/);
  });
  test('tool message whose tool_call_id is not among the previous tool_calls', async () => {
    await chat400(
      {
        model: 'gpt-4o',
        messages: [
          user,
          {
            role: 'assistant',
            tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_b', content: 'r' },
        ],
      },
      'messages.[2].tool_call_id',
    );
  });
  test('assistant tool_calls left unanswered', async () => {
    const e = await chat400(
      {
        model: 'gpt-4o',
        messages: [
          user,
          {
            role: 'assistant',
            tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          user,
        ],
      },
      'messages.[1].role',
    );
    assert.match(e.message, /call_a/);
  });
  test('tool call id longer than 40 characters', async () => {
    const id = `call_${'x'.repeat(40)}`;
    await chat400(
      {
        model: 'gpt-4o',
        messages: [
          user,
          { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: id, content: 'r' },
        ],
      },
      'messages[1].tool_calls[0].id',
      'string_above_max_length',
    );
  });
  test('top_logprobs without logprobs: true', async () => {
    await chat400({ model: 'gpt-4o', messages: [user], top_logprobs: 3 }, 'top_logprobs');
    await chat400({ model: 'gpt-4o', messages: [user], top_logprobs: 3, logprobs: false }, 'top_logprobs');
  });
  test('top_logprobs above 20', async () => {
    await chat400(
      { model: 'gpt-4o', messages: [user], top_logprobs: 21, logprobs: true },
      'top_logprobs',
      'integer_above_max_value',
    );
  });
  test('temperature out of range, n out of range, more than 4 stop sequences', async () => {
    await chat400({ model: 'gpt-4o', messages: [user], temperature: 2.5 }, 'temperature', 'decimal_above_max_value');
    await chat400({ model: 'gpt-4o', messages: [user], n: 0 }, 'n');
    await chat400(
      { model: 'gpt-4o', messages: [user], stop: ['a', 'b', 'c', 'd', 'e'] },
      'stop',
      'array_above_max_length',
    );
  });
  test('stream_options without stream', async () => {
    await chat400({ model: 'gpt-4o', messages: [user], stream_options: { include_usage: true } }, 'stream_options');
  });
  test("json_object response_format without the word 'json' in the messages", async () => {
    await chat400({ model: 'gpt-4o', messages: [user], response_format: { type: 'json_object' } }, 'messages');
  });
  test('tool without a name, tool_choice naming an undeclared tool, tool_choice without tools', async () => {
    await chat400(
      { model: 'gpt-4o', messages: [user], tools: [{ type: 'function', function: {} }] },
      'tools[0].function.name',
    );
    await chat400(
      {
        model: 'gpt-4o',
        messages: [user],
        tools: [{ type: 'function', function: { name: 'a' } }],
        tool_choice: { type: 'function', function: { name: 'b' } },
      },
      'tool_choice',
    );
    await chat400({ model: 'gpt-4o', messages: [user], tool_choice: 'required' }, 'tool_choice');
  });
  test('valid edge cases are accepted: n > 1 with stream, logprobs with top_logprobs 20', async () => {
    const ok = await raw(fake, 'POST', '/openai/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [user],
      n: 2,
      stream: true,
      logprobs: true,
      top_logprobs: 20,
    });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /"index":1/);
  });
});

describe('other endpoints validation', () => {
  test('embeddings: dimensions on a non text-embedding-3 model, empty input, bad encoding_format', async () => {
    const post = (b: unknown) => raw(fake, 'POST', '/openai/v1/embeddings', b);
    let r = await post({ model: 'text-embedding-ada-002', input: 'x', dimensions: 256 });
    assert.equal(r.status, 400);
    assertOaiError(r.json, 'dimensions');
    r = await post({ model: 'text-embedding-3-small', input: '' });
    assert.equal(r.status, 400);
    assertOaiError(r.json, 'input');
    r = await post({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'hex' });
    assertOaiError(r.json, 'encoding_format', 'invalid_value');
    r = await post({ model: 'text-embedding-3-small', input: 'x', dimensions: 5000 });
    assertOaiError(r.json, 'dimensions', 'invalid_value');
  });

  test('responses: missing input, role not allowed, function_call_output without its call, nested chat-style tool', async () => {
    const post = (b: unknown) => raw(fake, 'POST', '/openai/v1/responses', b);
    assertOaiError((await post({ model: 'gpt-4o' })).json, 'input', 'missing_required_parameter');
    assertOaiError(
      (await post({ model: 'gpt-4o', input: [{ role: 'tool', content: 'x' }] })).json,
      'input[0].role',
      'invalid_value',
    );
    const orphan = await post({
      model: 'gpt-4o',
      input: [{ type: 'function_call_output', call_id: 'call_z', output: 'r' }],
    });
    assert.equal(orphan.status, 400);
    assert.match(assertOaiError(orphan.json, 'input').message, /call_z/);
    const nested = await post({ model: 'gpt-4o', input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] });
    assertOaiError(nested.json, 'tools[0].name', 'missing_required_parameter');
    const prev = await post({ model: 'gpt-4o', input: 'x', previous_response_id: 'resp_missing' });
    assertOaiError(prev.json, 'previous_response_id', 'previous_response_not_found');
  });

  test('files and batches: missing purpose, unknown file, wrong purpose, bad completion_window', async () => {
    const form = new FormData();
    form.append('file', new Blob(['{}']), 'x.jsonl');
    const res = await fetch(`${fake.url}/openai/v1/files`, {
      method: 'POST',
      body: form,
      headers: { authorization: 'Bearer sk-t' },
    });
    assert.equal(res.status, 400);
    assertOaiError(await res.json(), 'purpose', 'missing_required_parameter');
    const missingFile = await raw(fake, 'GET', '/openai/v1/files/file-nope');
    assert.equal(missingFile.status, 404);
    assertOaiError(missingFile.json, 'id');
    const batch = await raw(fake, 'POST', '/openai/v1/batches', {
      input_file_id: 'file-nope',
      endpoint: '/v1/chat/completions',
      completion_window: '48h',
    });
    assert.equal(batch.status, 400);
    assertOaiError(batch.json, 'completion_window', 'invalid_value');
    const endpoint = await raw(fake, 'POST', '/openai/v1/batches', {
      input_file_id: 'file-nope',
      endpoint: '/v1/moderations',
      completion_window: '24h',
    });
    assertOaiError(endpoint.json, 'endpoint', 'invalid_value');
  });
});
