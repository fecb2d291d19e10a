// Slow senders cannot lock other tenants out of the body budget: a chunked body counts what has
// arrived, not the largest body it might become, and a body that pauses past the idle timeout has
// its connection closed.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

const IDLE_MS = 1500;
let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv({ config: { bodyIdleTimeoutMs: IDLE_MS } });
});
after(async () => {
  await env?.close();
});

/** An authenticated chunked POST that sends its body one byte at a time, never finishing. */
function trickle(port: number, key: string): { socket: Socket; closed: Promise<number>; send(): void } {
  const socket = connect(port, '127.0.0.1');
  socket.write(
    'POST /alpha/v1/chat/completions HTTP/1.1\r\nhost: x\r\n' +
      `authorization: Bearer ${key}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
  );
  socket.on('error', () => {});
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  return { socket, closed, send: () => socket.write('1\r\n \r\n') };
}

test('three trickling uploads hold no budget; another project calls with 100 KB; idle trickles are closed', async () => {
  const port = Number(new URL(env.gw.url).port);
  const trickles = [0, 1, 2].map(() => trickle(port, env.gw.adminKey));
  const keepSending = setInterval(() => {
    for (const t of trickles) t.send();
  }, IDLE_MS / 4);
  try {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const p = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'bystander' });
    const k = await api(env.gw, 'POST', '/manage/v1/api-keys', {
      name: 'b',
      project_id: (p.json as { id: string }).id,
    });
    const key = (k.json as { key: string }).key;
    const content = `summarise: ${'lorem ipsum '.repeat((100 * 1024) / 12)}`;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
    }
    for (const t of trickles) assert.equal(t.socket.destroyed, false, 'still sending, still open');
  } finally {
    clearInterval(keepSending);
  }
  // They stop sending: the idle timeout closes each within its bound.
  const closedAfter = await Promise.all(trickles.map((t) => t.closed));
  for (const ms of closedAfter) assert.ok(ms < IDLE_MS * 4 + 2000, `closed after ${ms} ms`);
});
