// SIGTERM with calls hanging on the upstream: past the drain time each caller gets an error answer
// (503 shutting_down, or an error record on a stream that already started), every call has its log
// row, and the process exits cleanly.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { spawnGateway } from '../helpers/gateway-process.ts';

test('SIGTERM past the drain time answers and logs every call in flight', async () => {
  const fake = await startFakeUpstream({ port: 0 });
  const gw = await spawnGateway({ SWITCHYARD_SHUTDOWN_DRAIN_MS: '800' });
  const { url } = gw;
  try {
    assert.equal(await gw.addOpenAi(fake.url), 201);
    const headers = { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' };
    const call = (model: string, stream: boolean) =>
      fetch(`${url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }),
        signal: AbortSignal.timeout(20_000),
      }).then(async (res) => ({ id: res.headers.get('x-svc-request-id'), status: res.status, text: await res.text() }));
    const hung = call('openai/gpt-4o-mini-hang', false);
    const stalled = call('openai/gpt-4o-mini-midstream-stall', true);
    await new Promise((r) => setTimeout(r, 500));
    gw.child.kill('SIGTERM');
    const [a, b] = await Promise.all([hung, stalled]);
    assert.equal(a.status, 503, a.text);
    assert.equal(JSON.parse(a.text).error.code, 'shutting_down');
    assert.equal(b.status, 200);
    const last = b.text.trim().split('\n\n').pop() ?? '';
    assert.match(last, /shutting down/, b.text);
    assert.equal(await gw.exited, 0);
    const db = new SQLite(join(gw.dataDir, 'switchyard.db'), { readonly: true });
    const rows = db.prepare('select id, status_code from request_logs where id in (?, ?)').all(a.id, b.id) as Array<{
      id: string;
      status_code: number;
    }>;
    db.close();
    assert.deepEqual(rows.map((r) => r.status_code).sort(), [503, 503]);
  } finally {
    await gw.stop();
    await fake.close();
  }
});
