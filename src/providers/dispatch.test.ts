import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Agent } from 'undici';
import { dispatchRequest } from './dispatch.ts';

const agent = new Agent({ connections: 4 });
let server: Server;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/echo') {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-up': 'yes' });
        res.end(JSON.stringify({ method: req.method, query: url.search, auth: req.headers.authorization, body }));
      });
      return;
    }
    if (url.pathname === '/big') {
      // 1 MiB in 1 KiB writes: more than the body's high-water mark, so the reader's pace matters.
      res.writeHead(200);
      const block = Buffer.alloc(1024, 97);
      let left = 1024;
      const pump = (): void => {
        while (left > 0) {
          left--;
          if (!res.write(block)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
      return;
    }
    if (url.pathname === '/burst') {
      // 20 records in one turn: 20 HTTP chunks that reach the client in one socket read.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 20; i++) res.write(`data: ${i}\n\n`);
      res.end();
      return;
    }
    if (url.pathname === '/hang-body') {
      res.writeHead(200);
      res.write('first');
      return; // never ends
    }
    if (url.pathname === '/hang') return; // never answers
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await agent.close();
});

test('status, headers, path with query, request body and the whole response as text', async () => {
  const res = await dispatchRequest(agent, {
    url: `${base}/echo?a=1`,
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: '{"x":1}',
  });
  assert.equal(res.status, 201);
  assert.equal(res.headers['x-up'], 'yes');
  assert.deepEqual(JSON.parse(await res.body.text()), {
    method: 'POST',
    query: '?a=1',
    auth: 'Bearer k',
    body: '{"x":1}',
  });
});

test('a body larger than the high-water mark arrives whole and in order to a slow reader', async () => {
  const res = await dispatchRequest(agent, { url: `${base}/big`, method: 'GET', headers: {} });
  let total = 0;
  let reads = 0;
  for await (const chunk of res.body) {
    total += chunk.length;
    assert.ok(chunk.every((b) => b === 97));
    if (++reads % 16 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  assert.equal(total, 1024 * 1024);
});

test('the chunks of a burst reach the reader together, whole and in order', async () => {
  const res = await dispatchRequest(agent, { url: `${base}/burst`, method: 'GET', headers: {} });
  let text = '';
  let reads = 0;
  for await (const chunk of res.body) {
    text += chunk.toString();
    reads++;
  }
  assert.equal(text, Array.from({ length: 20 }, (_, i) => `data: ${i}\n\n`).join(''));
  // One per HTTP chunk before; the loopback delivers the burst in one or two socket reads.
  assert.ok(reads <= 3, `${reads} reads for 20 chunks`);
});

test('an abort before the response rejects with the signal reason', async () => {
  const ac = new AbortController();
  const pending = dispatchRequest(agent, { url: `${base}/hang`, method: 'GET', headers: {}, signal: ac.signal });
  setTimeout(() => ac.abort(new Error('caller left')), 20);
  await assert.rejects(pending, /caller left/);
});

test('an abort during the body fails the reader instead of leaving it waiting', async () => {
  const ac = new AbortController();
  const res = await dispatchRequest(agent, {
    url: `${base}/hang-body`,
    method: 'GET',
    headers: {},
    signal: ac.signal,
  });
  const seen: string[] = [];
  const reading = (async () => {
    for await (const chunk of res.body) {
      seen.push(chunk.toString());
      ac.abort(new Error('stop now'));
    }
  })();
  await assert.rejects(reading, /stop now/);
  assert.deepEqual(seen, ['first']);
});

test('an already aborted signal and an unreachable host reject without a response', async () => {
  await assert.rejects(
    dispatchRequest(agent, {
      url: `${base}/echo`,
      method: 'GET',
      headers: {},
      signal: AbortSignal.abort(new Error('gone')),
    }),
    /gone/,
  );
  await assert.rejects(dispatchRequest(agent, { url: 'http://127.0.0.1:1/', method: 'GET', headers: {} }));
});
