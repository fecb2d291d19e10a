// SWITCHYARD_WORKERS=2: two processes behind one port, on one SQLite database. Both serve (the
// kernel spreads connections), a change made through one is seen by the other at once (the primary
// relays the event), a worker killed with -9 is started again, and SIGTERM stops them all.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';
import { call, chat, ok, within } from './helpers.ts';

/** A new connection per request, so that each may land on either worker. */
const fresh = new Agent({ pipelining: 0 });

async function workerOf(g: GatewayProcess): Promise<number> {
  const r = await undiciFetch(`${g.url}/healthz`, { dispatcher: fresh });
  return ((await r.json()) as { worker: number }).worker;
}

describe('SWITCHYARD_WORKERS=2', () => {
  let g: GatewayProcess;
  let fake: FakeUpstream;
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
    g = await spawnGateway({ SWITCHYARD_WORKERS: '2' });
    assert.equal(await g.addOpenAi(fake.url), 201);
  });
  after(async () => {
    await g?.stop();
    await fake?.close();
    await fresh.close();
  });

  test('both workers serve the one port', async () => {
    const seen = new Set<number>();
    await within(10_000, 'both workers answering', async () => {
      seen.add(await workerOf(g));
      return seen.size === 2 ? true : undefined;
    });
    assert.deepEqual([...seen].sort(), [1, 2]);
  });

  test('a key revoked through one worker is refused by both within 500 ms', async () => {
    const k = (await ok(g, 'POST', '/manage/v1/api-keys', { name: 'short-lived' })) as { key: string; id: string };
    for (let i = 0; i < 6; i++)
      assert.equal((await call(g, 'POST', '/alpha/v1/chat/completions', chat(), k.key)).status, 200);
    await ok(g, 'DELETE', `/manage/v1/api-keys/${k.id}`);
    // Each round below opens a connection per call, so they are spread over both workers; the
    // other worker hears of the revocation through the primary within milliseconds.
    const { value: statuses } = await within(500, 'the key refused by both workers', async () => {
      const round = await Promise.all(
        Array.from({ length: 10 }, () =>
          undiciFetch(`${g.url}/alpha/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
            body: JSON.stringify(chat()),
            dispatcher: fresh,
          }).then((r) => r.status),
        ),
      );
      return round.every((s) => s === 401) ? round : undefined;
    });
    assert.deepEqual([...new Set(statuses)], [401]);
  });

  test('a worker killed with -9 is started again; SIGTERM stops the whole gateway', async () => {
    const pids = new Set<number>();
    const res = await undiciFetch(`${g.url}/healthz`, { dispatcher: fresh });
    assert.equal(res.status, 200);
    // The primary's children are the workers.
    const { execFileSync } = await import('node:child_process');
    const children = execFileSync('pgrep', ['-P', String(g.child.pid)])
      .toString()
      .trim()
      .split('\n')
      .map(Number);
    assert.equal(children.length, 2);
    for (const p of children) pids.add(p);
    process.kill(children[0], 'SIGKILL');
    await within(10_000, 'two workers again', async () => {
      const now = execFileSync('pgrep', ['-P', String(g.child.pid)])
        .toString()
        .trim()
        .split('\n')
        .map(Number);
      return now.length === 2 && now.some((p) => !pids.has(p)) ? now : undefined;
    });
    assert.equal((await call(g, 'GET', '/manage/v1/projects')).status, 200);
    g.child.kill('SIGTERM');
    assert.equal(await g.exited, 0);
  });
});
