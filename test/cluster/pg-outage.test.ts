// PostgreSQL unreachable under load (a TCP proxy in front of it is cut, then restored): the gateway
// keeps serving from its in-memory mirrors with no 5xx, and the log rows of the calls made meanwhile
// wait in its journal and reach the database once it is back.
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { dropSchema, randomSchema, TEST_PG_URL } from '../helpers/dialects.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';
import { call, chat, within } from './helpers.ts';

/** A TCP pass-through to PostgreSQL that the test can cut (every connection dropped, new ones refused). */
class CuttableProxy {
  readonly #sockets = new Set<Socket>();
  #cut = false;
  readonly server: Server;

  constructor(target: URL) {
    this.server = createServer((client) => {
      if (this.#cut) {
        client.destroy();
        return;
      }
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  listen(): Promise<number> {
    return new Promise((resolve) =>
      this.server.listen(0, '127.0.0.1', () => resolve((this.server.address() as { port: number }).port)),
    );
  }

  cut(): void {
    this.#cut = true;
    for (const s of this.#sockets) s.destroy();
  }

  restore(): void {
    this.#cut = false;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('PostgreSQL outage', () => {
  let fake: FakeUpstream;
  let proxy: CuttableProxy;
  let g: GatewayProcess;
  const schema = randomSchema();
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
    proxy = new CuttableProxy(new URL(TEST_PG_URL));
    const port = await proxy.listen();
    const url = new URL(TEST_PG_URL);
    url.port = String(port);
    g = await spawnGateway({ SWITCHYARD_DATABASE_URL: url.toString(), SWITCHYARD_DATABASE_SCHEMA: schema });
    assert.equal(await g.addOpenAi(fake.url), 201);
  });
  after(async () => {
    await g?.stop();
    await proxy?.close();
    await fake?.close();
    await dropSchema(schema).catch(() => {});
  });

  test('calls keep succeeding; their log rows arrive once PostgreSQL is back', async () => {
    assert.equal((await call(g, 'POST', '/alpha/v1/chat/completions', chat())).status, 200);
    proxy.cut();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await fetch(`${g.url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(chat()),
      });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    assert.deepEqual([...new Set(statuses)], [200], JSON.stringify(statuses));
    proxy.restore();
    // The warm-up call and the 30 made while the database was away.
    const { value } = await within(30_000, 'the 31 rows in the log', async () => {
      const r = await call(g, 'GET', '/manage/v1/logs?limit=100&request_type=chat_completion');
      if (r.status !== 200) return undefined;
      const rows = r.json.data as unknown[];
      return rows.length === 31 ? rows : undefined;
    });
    assert.equal(value.length, 31);
  });
});
