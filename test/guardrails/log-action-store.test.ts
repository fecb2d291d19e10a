// The guardrail_action column and its filter on both dialects (migration 205): rows are found by
// their action, and a row without one is never matched by any value.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import { newId } from '../../src/util/ids.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { logRow } from '../helpers/log-row.ts';

function row(orgId: string, guardrailAction: string | null): RequestLogRow {
  return logRow({
    requestType: 'chat_completion',
    orgId,
    statusCode: guardrailAction === 'block' ? 400 : 200,
    latencyMs: 3,
    guardrailAction,
  });
}

for (const d of await dialects()) {
  describe(`guardrail_action column on ${d.name}`, { skip: d.skip }, () => {
    let db: TestDb;
    before(async () => {
      db = await d.open();
    });
    after(async () => {
      await db?.dispose();
    });

    test('rows are filtered by their strongest action', async () => {
      const logs = db.handle.stores.logs;
      const orgId = newId('org');
      const actions = ['block', 'mask', 'flag', 'shadow_mask', null, 'mask'];
      const rows = actions.map((a) => row(orgId, a));
      await logs.insertMany(rows);
      const ids = (a: string | null) =>
        rows
          .filter((r) => r.guardrailAction === a)
          .map((r) => r.id)
          .reverse();
      for (const a of ['block', 'mask', 'flag', 'shadow_mask', 'shadow_block']) {
        const found = await logs.list({ orgId, guardrailAction: a }, { limit: 10 });
        assert.deepEqual(
          found.map((r) => r.id),
          ids(a),
          a,
        );
        for (const r of found) assert.equal(r.guardrailAction, a);
      }
      const plain = await logs.get(orgId, rows[4]!.id);
      assert.equal(plain?.guardrailAction, undefined);
      assert.equal((await logs.list({ orgId }, { limit: 10 })).length, actions.length);
    });
  });
}
