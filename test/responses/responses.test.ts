// Stored responses through the official openai SDK, on both dialects: create as JSON, as a stream
// (finalResponse), in background (retrieve until completed, then the job's log row and webhook
// event), cancel, retrieve with stream replay, input items, delete. Follow-ups reach the credential
// that made the response; another project's key and unknown ids get 404; each call leaves one row.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { logRow, project, raw } from '../files/helpers.ts';
import { dialects } from '../helpers/dialects.ts';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { type Receiver, startReceiver, verifyDelivery, waitFor } from '../webhooks/receiver.ts';

const MODEL = 'openai/gpt-4o-mini';

function sdk(env: ProxyEnv, key = env.gw.adminKey, base = '/alpha/v1'): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${env.gw.url}${base}`, maxRetries: 0 });
}

async function _until<T>(what: string, fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const d of await dialects()) {
  describe(`stored responses (${d.name})`, { skip: d.skip }, () => {
    let env: ProxyEnv;
    let rx: Receiver;
    let secret: string;
    before(async () => {
      rx = await startReceiver(() => 200);
      env = await startProxyEnv({ postgres: d.name === 'postgres', config: { responsePollMs: 50 } });
      const hook = await api(env.gw, 'POST', '/manage/v1/webhooks/endpoints', {
        url: rx.url,
        event_types: ['response.completed'],
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.json));
      secret = (hook.json as { signing_secret: string }).signing_secret;
    });
    after(async () => {
      await env?.close();
      await rx?.close();
    });

    test('create as JSON: the upstream object with its id, cost logged once with response_create', async () => {
      const { data, response } = await sdk(env)
        .responses.create({ model: MODEL, input: 'Say hello', instructions: 'Be brief' })
        .withResponse();
      assert.match(data.id, /^resp_/);
      assert.equal(data.status, 'completed');
      assert.ok(data.output_text.length > 0);
      assert.equal(response.headers.get('x-svc-provider'), 'openai');
      assert.equal(response.headers.get('x-svc-model-used'), 'gpt-4o-mini');
      const cost = Number(response.headers.get('x-svc-cost-usd'));
      assert.ok(cost > 0, 'priced from usage');
      const row = await logRow(env.gw, response.headers.get('x-svc-request-id'));
      assert.equal(row.request_type, 'response_create');
      assert.equal(row.status_code, 200);
      assert.ok(Math.abs(Number(row.cost_usd) - cost) < 1e-9);
      // The stored object reads back the same through the gateway.
      const again = await sdk(env).responses.retrieve(data.id);
      assert.equal(again.id, data.id);
      assert.equal(again.output_text, data.output_text);
    });

    test('create as a stream: events relayed as they come, finalResponse() is complete', async () => {
      const stream = sdk(env).responses.stream({ model: MODEL, input: 'Tell me a story' });
      const types: string[] = [];
      stream.on('event', (e) => types.push(e.type));
      const final = await stream.finalResponse();
      assert.equal(final.status, 'completed');
      assert.equal(types[0], 'response.created');
      assert.equal(types.at(-1), 'response.completed');
      assert.ok(types.includes('response.output_text.delta'));
      // Retrieve replays the stored response as SSE, and starting_after skips what was seen.
      const replay = await sdk(env).responses.retrieve(final.id, { stream: true });
      const seen: number[] = [];
      for await (const e of replay) seen.push(e.sequence_number);
      assert.ok(seen.length >= types.length - 1);
      const tail = await sdk(env).responses.retrieve(final.id, { stream: true, starting_after: 2 });
      const later: number[] = [];
      for await (const e of tail) later.push(e.sequence_number);
      assert.ok(later.length > 0 && later.every((n) => n > 2), JSON.stringify(later));
    });

    test('background: queued at once, completes, logged once by the poll job with a response.completed event', async () => {
      const client = sdk(env);
      const { data: queued, response } = await client.responses
        .create({ model: MODEL, input: 'Think for a while', background: true })
        .withResponse();
      assert.ok(['queued', 'in_progress'].includes(queued.status ?? ''), queued.status ?? '');
      const requestId = response.headers.get('x-svc-request-id');
      // Nobody retrieves it: the gateway's own poll finds it finished and says so.
      const delivery = await waitFor('the response.completed delivery', () =>
        rx.received.find((r) => r.body.includes(queued.id)),
      );
      const event = verifyDelivery(secret, delivery);
      assert.equal(event.type, 'response.completed');
      assert.deepEqual(event.data, { id: queued.id, model: MODEL, status: 'completed' });
      const done = await client.responses.retrieve(queued.id);
      assert.equal(done.status, 'completed');
      assert.ok(done.output_text.length > 0);
      assert.equal(rx.received.filter((r) => r.body.includes(queued.id)).length, 1, 'one event');
      const row = await logRow(env.gw, requestId);
      assert.equal(row.request_type, 'response_create');
      assert.ok(Number(row.cost_usd) > 0, 'cost of the finished response');
      const events = await raw(env.gw, 'GET', '/manage/v1/logs?request_type=response_create&limit=100');
      const rows = (events.json?.data as Array<{ id: string }>).filter((r) => r.id === requestId);
      assert.equal(rows.length, 1, 'one row for the create call');
    });

    test('background cancel reaches the same upstream; a synchronous response cannot be cancelled', async () => {
      const client = sdk(env);
      const queued = await client.responses.create({ model: `${MODEL}-hang`, input: 'never ends', background: true });
      const cancelled = await client.responses.cancel(queued.id);
      assert.equal(cancelled.status, 'cancelled');
      const sync = await client.responses.create({ model: MODEL, input: 'quick' });
      await assert.rejects(client.responses.cancel(sync.id), (e: unknown) => e instanceof OpenAI.BadRequestError);
    });

    test('input items list with paging, then delete; the id is then unknown', async () => {
      const client = sdk(env);
      const r = await client.responses.create({
        model: MODEL,
        input: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
      });
      const page = await client.responses.inputItems.list(r.id, { order: 'asc', limit: 2 });
      assert.equal(page.data.length, 2);
      assert.equal(page.has_more, true);
      const all = [];
      for await (const item of client.responses.inputItems.list(r.id, { order: 'asc', limit: 1 })) all.push(item);
      assert.equal(all.length, 3);
      // The SDK hands back the upstream's confirmation as it came (older versions: nothing).
      const del: unknown = await client.responses.delete(r.id);
      if (del !== undefined) assert.deepEqual(del, { id: r.id, object: 'response', deleted: true });
      await assert.rejects(client.responses.retrieve(r.id), (e: unknown) => e instanceof OpenAI.NotFoundError);
    });

    test('another project cannot see a response; unknown ids are 404, never 500; each has a log row', async () => {
      const a = await project(env.gw, `resp-a-${d.name}`);
      const b = await project(env.gw, `resp-b-${d.name}`);
      const mine = await sdk(env, a.key).responses.create({ model: MODEL, input: 'private' });
      for (const [method, path] of [
        ['GET', `/alpha/v1/responses/${mine.id}`],
        ['DELETE', `/alpha/v1/responses/${mine.id}`],
        ['POST', `/alpha/v1/responses/${mine.id}/cancel`],
        ['GET', `/alpha/v1/responses/${mine.id}/input_items`],
        ['GET', '/alpha/v1/responses/resp_unknown'],
      ] as const) {
        const r = await raw(env.gw, method, path, { key: b.key });
        assert.equal(r.status, 404, `${method} ${path}`);
        assert.equal((r.json?.error as { type: string }).type, 'invalid_request_error');
        const row = await logRow(env.gw, r.requestId);
        assert.equal(row.status_code, 404);
      }
      assert.equal((await sdk(env, a.key).responses.retrieve(mine.id)).id, mine.id);
    });

    test("another project's response and file ids never reach the vendor: refused as unknown ones are", async () => {
      const a = await project(env.gw, `ref-a-${d.name}`);
      const b = await project(env.gw, `ref-b-${d.name}`);
      const mine = await sdk(env, a.key).responses.create({ model: MODEL, input: 'remember: blue' });
      const file = await sdk(env, a.key).files.create({
        file: new File(['private notes'], 'notes.txt', { type: 'text/plain' }),
        purpose: 'user_data',
      });
      // The owner chains on its own response.
      const next = await sdk(env, a.key).responses.create({
        model: MODEL,
        input: 'and?',
        previous_response_id: mine.id,
      });
      assert.equal(next.status, 'completed');
      const asked = env.fake.requests().length;
      const post = (body: object) =>
        raw(env.gw, 'POST', '/alpha/v1/responses', {
          key: b.key,
          body: JSON.stringify({ model: MODEL, ...body }),
          headers: { 'content-type': 'application/json' },
        });
      const foreign = await post({ input: 'what colour?', previous_response_id: mine.id });
      const unknown = await post({ input: 'what colour?', previous_response_id: 'resp_made_up' });
      for (const r of [foreign, unknown]) {
        assert.equal(r.status, 400, r.text);
        const err = r.json?.error as { type: string; param: string; message: string };
        assert.equal(err.type, 'invalid_request_error');
        assert.equal(err.param, 'previous_response_id');
        assert.equal((await logRow(env.gw, r.requestId)).status_code, 400);
      }
      // The same words for both, but for the id itself: nothing tells that the first one exists.
      assert.equal(
        (foreign.json?.error as { message: string }).message.replace(mine.id, 'ID'),
        (unknown.json?.error as { message: string }).message.replace('resp_made_up', 'ID'),
      );
      const input = [{ role: 'user', content: [{ type: 'input_file', file_id: file.id }] }];
      const stolenFile = await post({ input });
      assert.equal(stolenFile.status, 400, stolenFile.text);
      assert.equal((stolenFile.json?.error as { param: string }).param, 'input');
      assert.equal(env.fake.requests().length, asked, 'none of the refused calls reached the vendor');
    });

    test('azure-openai serves responses too; a model of another family is a 400 that says why', async () => {
      const r = await sdk(env).responses.create({ model: 'azure-openai/gpt-4o-mini', input: 'hi' });
      assert.equal(r.status, 'completed');
      assert.equal((await sdk(env).responses.retrieve(r.id)).id, r.id);
      const items = await sdk(env).responses.inputItems.list(r.id);
      assert.equal(items.data.length, 1);
      await sdk(env).responses.delete(r.id);
      await assert.rejects(sdk(env).responses.retrieve(r.id), (e: unknown) => e instanceof OpenAI.NotFoundError);
      const bad = await raw(env.gw, 'POST', '/alpha/v1/responses', {
        body: JSON.stringify({ model: 'anthropic/claude-3-5-haiku-latest', input: 'hi' }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(bad.status, 400);
      assert.match(String((bad.json?.error as { message: string }).message), /anthropic.*Responses API/);
    });

    test('BYOK: the caller key is used and never stored; follow-ups must bring it again', async () => {
      const byok = new OpenAI({
        apiKey: env.gw.adminKey,
        baseURL: `${env.gw.url}/v1`,
        maxRetries: 0,
        defaultHeaders: { 'X-Svc-Provider-Key': 'sk-caller-own-key-1234' },
      });
      const { data: r, response } = await byok.responses.create({ model: MODEL, input: 'mine' }).withResponse();
      assert.equal((await byok.responses.retrieve(r.id)).id, r.id);
      const without = await raw(env.gw, 'GET', `/v1/responses/${r.id}`);
      assert.equal(without.status, 400);
      assert.match(String((without.json?.error as { message: string }).message), /X-Svc-Provider-Key/);
      const row = await logRow(env.gw, response.headers.get('x-svc-request-id'));
      assert.doesNotMatch(JSON.stringify(row), /sk-caller-own-key/);
    });

    test('@slug: a fallback config of alpha upstreams fails over, with the decision trace in the row', async () => {
      const mk = (slug: string, models: string[]) =>
        api(env.gw, 'POST', '/manage/v1/routing-configs', {
          name: slug,
          slug,
          strategy: 'fallback',
          config: { attempts: models.map((model) => ({ model })), retry_on: ['429', '5xx'] },
        });
      assert.equal((await mk(`resp-ok-${d.name}`, [`${MODEL}-fail-500`, 'azure-openai/gpt-4o-mini'])).status, 201);
      const { data, response } = await sdk(env)
        .responses.create({ model: `@resp-ok-${d.name}`, input: 'route me' })
        .withResponse();
      assert.equal(data.status, 'completed');
      assert.equal(response.headers.get('x-svc-provider'), 'azure-openai');
      assert.equal(response.headers.get('x-svc-config'), `resp-ok-${d.name}`);
      const row = await logRow(env.gw, response.headers.get('x-svc-request-id'));
      const attempts = row.attempts as Array<{ provider: string; status: number }>;
      assert.deepEqual(
        attempts.map((a) => [a.provider, a.status]),
        [
          ['openai', 500],
          ['azure-openai', 200],
        ],
      );
      // Follow-ups go where the response was made, not through the config again.
      assert.equal((await sdk(env).responses.retrieve(data.id)).id, data.id);

      assert.equal((await mk(`resp-mixed-${d.name}`, [MODEL, 'anthropic/claude-3-5-haiku-latest'])).status, 201);
      const mixed = await raw(env.gw, 'POST', '/v1/responses', {
        body: JSON.stringify({ model: `@resp-mixed-${d.name}`, input: 'x' }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(mixed.status, 400);
      assert.match(String((mixed.json?.error as { message: string }).message), /anthropic\/claude-3-5-haiku-latest/);
    });

    test('the root base URL serves the same API', async () => {
      const r = await sdk(env, env.gw.adminKey, '/v1').responses.create({ model: MODEL, input: 'root' });
      assert.equal(r.status, 'completed');
      assert.equal((await sdk(env, env.gw.adminKey, '/v1').responses.retrieve(r.id)).id, r.id);
    });
  });
}
