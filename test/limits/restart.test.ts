// Spend survives a restart (rebuilt from the request log of the open period) on both dialects, and
// a kill -9 too: the journal replays the answered calls' rows before the rebuild reads them.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { dialects, dropSchema } from '../helpers/dialects.ts';
import { call, startGateway } from '../helpers/gateway.ts';
import { waitFor } from '../webhooks/receiver.ts';

type Json = Record<string, unknown>;

for (const d of await dialects()) {
  describe(`budget spend across a restart (${d.name})`, { skip: d.skip }, () => {
    test('the spend, per member too, is the same after a restart', async () => {
      const fake = await startFakeUpstream({ port: 0 });
      let gw = await startGateway({ postgres: d.name === 'postgres' });
      const { dataDir, pgSchema } = gw;
      try {
        await call(gw, 'POST', '/manage/v1/providers', {
          vendor: 'openai',
          name: 'fake',
          api_key: 'sk-x',
          base_url: `${fake.url}/openai/v1`,
        });
        const org = (
          await call(gw, 'POST', '/manage/v1/budgets', {
            name: 'org month',
            scope: { type: 'org' },
            period: 'monthly',
            limit_usd: 10,
          })
        ).body as Json;
        const users = (
          await call(gw, 'POST', '/manage/v1/budgets', {
            name: 'each user',
            scope: { type: 'end_user' },
            period: 'daily',
            limit_usd: 1,
          })
        ).body as Json;
        for (const user of ['ann', 'ann', 'ben']) {
          const r = await call(
            gw,
            'POST',
            '/alpha/v1/chat/completions',
            { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] },
            { 'x-svc-user-id': user },
          );
          assert.equal(r.status, 200, r.text);
        }
        const read = async (id: unknown, member?: string) => {
          const q = member ? `?member=${member}` : '';
          const r = await call(gw, 'GET', `/manage/v1/budgets/${id}${q}`);
          return (r.body as { status: { spent_usd: number; reserved_usd: number } }).status;
        };
        const before = await waitFor('settled', async () => {
          const s = await read(org.id);
          return s.reserved_usd === 0 && s.spent_usd > 0 ? s : undefined;
        });
        const annBefore = await read(users.id, 'ann');
        const benBefore = await read(users.id, 'ben');
        assert.ok(annBefore.spent_usd > benBefore.spent_usd && benBefore.spent_usd > 0);

        await gw.close({ keepData: true });
        gw = await startGateway({ dataDir, ...(pgSchema ? { postgres: true, pgSchema } : {}) });
        assert.equal((await read(org.id)).spent_usd, before.spent_usd);
        assert.equal((await read(users.id, 'ann')).spent_usd, annBefore.spent_usd);
        assert.equal((await read(users.id, 'ben')).spent_usd, benBefore.spent_usd);
        const members = (await call(gw, 'GET', `/manage/v1/budgets/${users.id}`)).body as { members: Json[] };
        assert.deepEqual(
          members.members.map((m) => m.member),
          ['ann', 'ben'],
        );
      } finally {
        await gw.close();
        rmSync(dataDir, { recursive: true, force: true });
        if (pgSchema) await dropSchema(pgSchema);
        await fake.close();
      }
    });
  });
}
