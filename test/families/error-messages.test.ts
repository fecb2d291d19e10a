// Errors say exactly what happened, with the registry's code, in the called family's shape
// (alpha: {"error":{message,type,param,code}}, beta: {"type":"error","error":{type,message}}):
// embeddings on a vendor without an embeddings API, an empty body, a body over the size limit,
// a bad log filter value, a typo under the root base URL, a key sent without "Bearer ".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

before(async () => {
  // A small body limit, so the 413 needs no 32 MB upload.
  env = await startProxyEnv({ config: { maxBodyBytes: 1024 * 1024 } });
});
after(async () => {
  await env?.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function send(method: string, path: string, body?: string, headers?: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${env.gw.url}${path}`, {
    method,
    headers: headers ?? {
      authorization: `Bearer ${env.gw.adminKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The alpha error object, after checking the shape has exactly its four fields. */
function alpha(a: Answer, status: number): { message: string; type: string; param: unknown; code: unknown } {
  assert.equal(a.status, status, JSON.stringify(a.body));
  const e = a.body.error as { message: string; type: string; param: unknown; code: unknown };
  assert.deepEqual(Object.keys(a.body), ['error']);
  assert.deepEqual(Object.keys(e).sort(), ['code', 'message', 'param', 'type']);
  return e;
}

function beta(a: Answer, status: number): { type: string; message: string } {
  assert.equal(a.status, status, JSON.stringify(a.body));
  assert.equal(a.body.type, 'error');
  const e = a.body.error as { type: string; message: string };
  assert.deepEqual(Object.keys(e).sort(), ['message', 'type']);
  return e;
}

describe('errors name what happened', () => {
  test('embeddings on a vendor without an embeddings API: no_embeddings_api', async () => {
    const e = alpha(
      await send('POST', '/v1/embeddings', JSON.stringify({ model: VENDOR_MODELS.anthropic, input: 'x' })),
      400,
    );
    assert.equal(e.code, 'no_embeddings_api');
    assert.equal(e.type, 'invalid_request_error');
    assert.match(e.message, /anthropic has no embeddings API/);
  });

  test('an empty body: empty_body, on every JSON endpoint of both families', async () => {
    for (const path of ['/alpha/v1/chat/completions', '/v1/embeddings', '/v1/responses', '/v1/images/generations']) {
      for (const body of ['', undefined]) {
        const e = alpha(await send('POST', path, body), 400);
        assert.equal(e.code, 'empty_body', path);
        assert.match(e.message, /Request body is empty/);
      }
    }
    for (const path of ['/beta/v1/messages', '/v1/messages', '/v1/messages/count_tokens', '/v1/messages/batches']) {
      const e = beta(await send('POST', path, ''), 400);
      assert.equal(e.type, 'invalid_request_error');
      assert.match(e.message, /Request body is empty/, path);
    }
  });

  test('413 names the limit in MB', async () => {
    const big = JSON.stringify({ model: VENDOR_MODELS.openai, messages: [{ role: 'user', content: 'a'.repeat(2e6) }] });
    const e = alpha(await send('POST', '/v1/chat/completions', big), 413);
    assert.equal(e.code, 'request_too_large');
    assert.match(e.message, /\b1 MB limit\b/);
    const b = beta(await send('POST', '/v1/messages', big), 413);
    assert.equal(b.type, 'request_too_large');
    assert.match(b.message, /\b1 MB limit\b/);
  });

  test('a bad status filter on the logs list names the allowed values', async () => {
    const e = alpha(await send('GET', '/manage/v1/logs?status=bogus'), 400);
    assert.equal(e.code, 'invalid_parameter');
    assert.equal(e.param, 'status');
    assert.equal(e.message, "Invalid query parameter 'status': must be one of: 2xx, 4xx, 5xx");
  });

  test('a typo under the root base URL names the path the caller sent', async () => {
    const e = alpha(await send('POST', '/v1/chat/completion', '{}'), 404);
    assert.equal(e.code, 'unknown_route');
    assert.equal(e.message, 'Unknown route: POST /v1/chat/completion');
    const b = beta(await send('POST', '/v1/messages/count-tokens?x=1', '{}'), 404);
    assert.equal(b.type, 'not_found_error');
    assert.equal(b.message, 'Unknown route: POST /v1/messages/count-tokens');
  });

  test('a key without "Bearer " says so, without echoing the key', async () => {
    const key = env.gw.adminKey;
    const e = alpha(await send('GET', '/manage/v1/projects', undefined, { authorization: key }), 401);
    assert.equal(e.code, 'invalid_api_key');
    assert.match(e.message, /no "Bearer " prefix/);
    assert.ok(!e.message.includes(key));
    const b = beta(await send('POST', '/v1/messages', '{}', { authorization: key }), 401);
    assert.equal(b.type, 'authentication_error');
    assert.match(b.message, /no "Bearer " prefix/);
    const basic = alpha(await send('GET', '/manage/v1/projects', undefined, { authorization: `Basic ${key}` }), 401);
    assert.match(basic.message, /scheme other than Bearer/);
    assert.ok(!basic.message.includes(key));
    const none = alpha(await send('GET', '/manage/v1/projects', undefined, {}), 401);
    assert.match(none.message, /^Missing API key/);
  });
});
