// Two gateways on one PostgreSQL schema and one Redis prefix, with the mirrors' periodic poll set to
// an hour: a credential added on A reaches B's credential mirror only through the change bus. Right
// after both start, it arrives as an event; and when B's bus subscribes only after A's change (B's
// Redis is unreachable while both start), B catches up as soon as it subscribes, not an interval
// later. Before that catch-up existed the second case waited for the poll (here: never).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { dialects } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { RedisGate } from '../helpers/redis-gate.ts';
import { TEST_REDIS_URL, within } from './helpers.ts';

const pg = (await dialects()).find((d) => d.name === 'postgres');
const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');
/** Longer than any test here runs: what B knows, it heard on the bus. */
const NO_POLL_MS = 3_600_000;

async function pairOnOneStore(bRedisUrl: string): Promise<{ a: Gateway; b: Gateway }> {
  const shared = {
    masterKey: MASTER_KEY,
    redisPrefix: `catchup${randomBytes(4).toString('hex')}`,
    refreshIntervalMs: NO_POLL_MS,
  };
  const a = await startGateway({ postgres: true, config: { ...shared, redisUrl: TEST_REDIS_URL } });
  try {
    const b = await startGateway({
      postgres: true,
      pgSchema: a.pgSchema ?? undefined,
      config: { ...shared, redisUrl: bRedisUrl },
    });
    return { a, b };
  } catch (err) {
    await a.close();
    throw err;
  }
}

async function addCredential(a: Gateway, fake: FakeUpstream): Promise<string> {
  const r = await call(a, 'POST', '/manage/v1/providers', {
    vendor: 'openai',
    name: 'fake',
    api_key: 'sk-catch-up',
    base_url: `${fake.url}/openai/v1`,
  });
  assert.equal(r.status, 201, r.text);
  return (r.body as { id: string }).id;
}

/** B's credential mirror knows the credential: the moment a proxy call on B can use it. */
const knownOn = (g: Gateway, id: string) => async () =>
  g.app.svc.credentials.orgOf(id) !== undefined ? true : undefined;

async function chatOn(g: Gateway): Promise<string | null> {
  const client = new OpenAI({ apiKey: g.adminKey, baseURL: `${g.url}/alpha/v1`, maxRetries: 0 });
  const answer = await client.chat.completions.create({
    model: 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
  });
  return answer.choices[0].message.content;
}

describe('a credential added on A reaches B without the poll', { skip: pg?.skip }, () => {
  let fake: FakeUpstream;
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
  });
  after(async () => {
    await fake.close();
  });

  test('right after both start, the change event carries it', async (t) => {
    const { a, b } = await pairOnOneStore(TEST_REDIS_URL);
    try {
      const id = await addCredential(a, fake);
      const { ms } = await within(5000, "B's mirror has the credential", knownOn(b, id));
      t.diagnostic(`B knew the credential ${ms.toFixed(0)} ms after A answered the create`);
      assert.equal(typeof (await chatOn(b)), 'string');
    } finally {
      await b.close({ keepData: true });
      await a.close();
    }
  });

  test('a change made before B could hear it is read when B subscribes', async (t) => {
    const gate = await RedisGate.start({ open: false });
    // B starts on its own counters (its start waits a few seconds for Redis, then goes on).
    const { a, b } = await pairOnOneStore(gate.url);
    try {
      assert.equal(b.app.svc.cluster.changes, 'local');
      const id = await addCredential(a, fake);
      assert.equal(b.app.svc.credentials.orgOf(id), undefined, 'B cannot have heard of it yet');
      const opened = performance.now();
      gate.open();
      await within(10_000, "B's bus subscribed", async () =>
        b.app.svc.cluster.changes === 'redis' ? true : undefined,
      );
      const subscribed = performance.now() - opened;
      // Without the catch-up on subscribing, only the poll (an hour away) would bring it.
      const { ms } = await within(5000, "B's mirror has the credential", knownOn(b, id));
      t.diagnostic(
        `B subscribed ${subscribed.toFixed(0)} ms after Redis opened; knew the credential ${ms.toFixed(0)} ms later`,
      );
      assert.equal(typeof (await chatOn(b)), 'string');
    } finally {
      await b.close({ keepData: true });
      await a.close();
      await gate.close();
    }
  });
});
