// The front door (src/http/front-door.ts) serves the common model call ahead of fastify; every
// other request goes to fastify. The same call sent both ways must get the same answer: the door
// is taken with a plain content-length body, fastify with the same bytes sent chunked.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One POST; `chunked` sends the body without a content-length (fastify's path). */
function post(path: string, body: string, opts: { chunked?: boolean; key?: string; contentType?: string } = {}) {
  const url = new URL(path, env.gw.url);
  const headers: Record<string, string> = {
    authorization: `Bearer ${opts.key ?? env.gw.adminKey}`,
    'content-type': opts.contentType ?? 'application/json',
  };
  if (opts.chunked) headers['transfer-encoding'] = 'chunked';
  else headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `body` both ways; returns [front door, fastify] and checks which one the door took. */
async function bothWays(path: string, body: string, opts: { key?: string } = {}): Promise<[Answer, Answer]> {
  const door = env.gw.app.frontDoor;
  const before = door.taken;
  const front = await post(path, body, opts);
  assert.equal(door.taken, before + 1, 'the door took the content-length call');
  const behind = await post(path, body, { ...opts, chunked: true });
  assert.equal(door.taken, before + 1, 'the chunked call went to fastify');
  return [front, behind];
}

/** The headers a caller can rely on: every name, and the values that do not change per call. */
function stableHeaders(a: Answer): Record<string, unknown> {
  const varying = new Set(['date', 'x-svc-request-id', 'request-id', 'x-request-id', 'x-svc-latency-ms']);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a.headers)) out[k] = varying.has(k) ? typeof v : v;
  return out;
}

function withoutIds(text: string): unknown {
  const v = JSON.parse(text) as Record<string, unknown>;
  delete v.id;
  delete v.created;
  return v;
}

describe('the front door and fastify answer alike', () => {
  const chat = JSON.stringify({
    model: 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: 'hello there' }],
  });

  test('a chat completion: status, headers and body', async () => {
    const [front, behind] = await bothWays('/alpha/v1/chat/completions', chat);
    assert.equal(front.status, 200, front.text);
    assert.equal(behind.status, 200, behind.text);
    assert.deepEqual(stableHeaders(front), stableHeaders(behind));
    assert.deepEqual(withoutIds(front.text), withoutIds(behind.text));
    const id = front.headers['x-svc-request-id'];
    assert.match(String(id), /^req_/);
    assert.equal(front.headers['request-id'], id);
    assert.equal(front.headers['x-request-id'], id);
    assert.equal(front.headers['content-type'], 'application/json; charset=utf-8');
  });

  test('messages, and chat through the root base URL', async () => {
    const messages = JSON.stringify({
      model: 'anthropic/claude-3-5-haiku-latest',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hello there' }],
    });
    const [front, behind] = await bothWays('/beta/v1/messages', messages);
    assert.equal(front.status, 200, front.text);
    assert.deepEqual(stableHeaders(front), stableHeaders(behind));
    assert.deepEqual(withoutIds(front.text), withoutIds(behind.text));
    const [rootFront, rootBehind] = await bothWays('/v1/chat/completions', chat);
    assert.equal(rootFront.status, 200, rootFront.text);
    assert.deepEqual(withoutIds(rootFront.text), withoutIds(rootBehind.text));
  });

  test('a stream', async () => {
    const body = JSON.stringify({
      model: 'openai/gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'stream me' }],
    });
    const [front, behind] = await bothWays('/alpha/v1/chat/completions', body);
    assert.equal(front.status, 200);
    assert.equal(front.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.deepEqual(stableHeaders(front), stableHeaders(behind));
    const deltas = (t: string) =>
      t
        .split('\n')
        .filter((l) => l.startsWith('data: {'))
        .map((l) => (JSON.parse(l.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta);
    assert.deepEqual(deltas(front.text), deltas(behind.text));
    assert.ok(front.text.trimEnd().endsWith('data: [DONE]'));
  });

  for (const [name, body, code] of [
    ['malformed JSON', '{"model": "openai/gpt-4o-mini",', 'invalid_json'],
    ['a blank body', '   ', 'empty_body'],
    ['JSON nested too deep', `${'['.repeat(200)}${']'.repeat(200)}`, 'json_too_deep'],
  ] as const) {
    test(`${name}: the same error in each family's shape`, async () => {
      const [front, behind] = await bothWays('/alpha/v1/chat/completions', body);
      assert.equal(front.status, 400);
      assert.equal(front.text, behind.text);
      assert.equal((JSON.parse(front.text) as { error: { code: string } }).error.code, code);
      const [betaFront, betaBehind] = await bothWays('/beta/v1/messages', body);
      assert.equal(betaFront.status, 400);
      assert.equal(betaFront.text, betaBehind.text);
      assert.equal((JSON.parse(betaFront.text) as { type: string }).type, 'error');
    });
  }
});

describe('what the door leaves to fastify', () => {
  test('an unknown key, another content type, a query string, a large body', async () => {
    const door = env.gw.app.frontDoor;
    const before = door.taken;
    const chat = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] };
    const unknown = await post('/alpha/v1/chat/completions', JSON.stringify(chat), { key: 'sk-not-a-key-000000' });
    assert.equal(unknown.status, 401);
    const plain = await post('/alpha/v1/chat/completions', JSON.stringify(chat), { contentType: 'text/plain' });
    assert.equal(plain.status, 400);
    assert.equal((JSON.parse(plain.text) as { error: { code: string } }).error.code, 'unsupported_content_type');
    const query = await post('/alpha/v1/chat/completions?x=1', JSON.stringify(chat));
    assert.equal(query.status, 200, query.text);
    const padded = JSON.stringify({ ...chat, metadata: { pad: 'x'.repeat(70_000) } });
    const large = await post('/alpha/v1/chat/completions', padded);
    assert.equal(large.status, 200, large.text);
    assert.equal(door.taken, before, 'none of these went through the door');
  });

  test('both SDKs through the door', async () => {
    const door = env.gw.app.frontDoor;
    const before = door.taken;
    const openai = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/v1`, maxRetries: 0 });
    const chat = await openai.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.equal(chat.choices[0].message.content, 'Echo: hello there');
    const anthropic = new Anthropic({ apiKey: env.gw.adminKey, baseURL: env.gw.url, maxRetries: 0 });
    const msg = await anthropic.messages.create({
      model: 'anthropic/claude-3-5-haiku-latest',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.equal(msg.content[0].type === 'text' ? msg.content[0].text : '', 'Echo: hello there');
    assert.equal(door.taken, before + 2);
  });

  test('at debug level every call goes to fastify, which writes its per-request lines', async () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const debug = await startProxyEnv({ config: { logLevel: 'debug' }, logDestination: destination });
    try {
      const res = await fetch(`${debug.gw.url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${debug.gw.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(res.status, 200);
      await res.text();
      assert.equal(debug.gw.app.frontDoor.taken, 0);
      assert.ok(
        lines.some((l) => l.includes('incoming request') && l.includes('/alpha/v1/chat/completions')),
        'the line for the call coming in',
      );
      assert.ok(
        lines.some((l) => l.includes('request completed')),
        'the line for its answer',
      );
    } finally {
      await debug.close();
    }
  });

  test('a caller who leaves mid-body costs nothing and breaks nothing', async () => {
    const door = env.gw.app.frontDoor;
    const before = door.taken;
    const { port } = new URL(env.gw.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /alpha/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
            `authorization: Bearer ${env.gw.adminKey}\r\ncontent-length: 1000\r\n\r\n{"model":`,
        );
        // Leave once the door has the call: a fixed wait lost the race on a busy CI machine.
        const leave = setInterval(() => {
          if (door.taken === before) return;
          clearInterval(leave);
          socket.destroy();
          resolve();
        }, 5);
      });
      socket.on('error', reject);
    });
    assert.equal(door.taken, before + 1);
    const after = await post(
      '/alpha/v1/chat/completions',
      JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'still here' }] }),
    );
    assert.equal(after.status, 200, after.text);
  });

  test('once closing, the door takes nothing more', async () => {
    const door = env.gw.app.frontDoor;
    const gw = await startProxyEnv();
    try {
      const door2 = gw.gw.app.frontDoor;
      door2.close();
      const res = await fetch(`${gw.gw.url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.gw.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(res.status, 200);
      assert.equal(door2.taken, 0);
      assert.notEqual(door, door2);
    } finally {
      await gw.close();
    }
  });
});
