// The audit chain at the store: appends from two store handles (two instances) at once still form
// one gap-free chain per organization; retention deletes old entries and the rest still verifies
// from the kept anchor; a row deleted behind the store's back is detected; the CLI records its writes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keysCreate, keysRevoke } from '../../src/cli/keys.ts';
import type { NewAuditEntry } from '../../src/store/audit-log.ts';
import { openStore, type StoreHandle } from '../../src/store/index.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const entry = (orgId: string, n: number): NewAuditEntry => ({
  orgId,
  actor: { type: 'system', id: 'test', name: null },
  action: 'thing.update',
  resourceType: 'thing',
  resourceId: `thing_${n}`,
  before: JSON.stringify({ n: n - 1 }),
  after: JSON.stringify({ n }),
  requestId: null,
  ip: null,
  userAgent: null,
});

for (const d of await dialects()) {
  describe(`audit chain (${d.name})`, { skip: d.skip }, () => {
    let db: TestDb;
    let second: StoreHandle | undefined;
    before(async () => {
      db = await d.open();
      if (d.name === 'postgres') second = await openStore(db.config);
    });
    after(async () => {
      await second?.close();
      await db?.dispose();
    });

    test('concurrent appends from two instances form one chain per org', async () => {
      const a = db.handle.stores.auditLog;
      // Two handles in one process cannot share SQLite: a waiting `begin immediate` blocks the event
      // loop the lock holder needs. SQLite's instances are processes (SWITCHYARD_WORKERS) instead.
      const b = second?.stores.auditLog ?? a;
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).append(entry(i % 4 < 2 ? 'org_a' : 'org_b', i))),
      );
      for (const org of ['org_a', 'org_b']) {
        assert.deepEqual(await a.verify(org), { ok: true, checked: 20, first_bad_id: null });
        const rows = await b.list({ orgId: org }, { limit: 100 });
        assert.deepEqual(
          rows.map((r) => r.seq).sort((x, y) => x - y),
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      }
    });

    test('retention keeps the chain verifiable; a deleted row is named', async () => {
      const s = db.handle.stores.auditLog;
      const org = 'org_retention';
      for (let i = 0; i < 5; i++) await s.append(entry(org, i));
      await new Promise((r) => setTimeout(r, 15));
      const cutoff = new Date().toISOString();
      for (let i = 5; i < 10; i++) await s.append(entry(org, i));
      // The sweep covers every organization (the earlier test's too).
      assert.ok((await s.sweep(cutoff)) >= 5);
      assert.equal(await s.sweep(cutoff), 0);
      assert.deepEqual(await s.verify(org), { ok: true, checked: 5, first_bad_id: null });
      const kept = (await s.list({ orgId: org }, { limit: 10 })).reverse();
      const [, gone, next] = kept;
      assert.ok(gone && next);
      await db.handle.db
        .withTables<{ audit_log: { id: string } }>()
        .deleteFrom('audit_log')
        .where('id', '=', gone.id)
        .execute();
      assert.deepEqual(await s.verify(org), { ok: false, checked: 2, first_bad_id: next.id });
    });

    test('the CLI records key creation and revocation as system/cli', async () => {
      const org = await db.handle.stores.orgKeys.createOrg({ id: 'org_cli', name: 'cli org' });
      const saved = { ...process.env };
      const write = process.stdout.write.bind(process.stdout);
      let out = '';
      process.stdout.write = (chunk: string | Uint8Array) => {
        out += String(chunk);
        return true;
      };
      try {
        if (d.name === 'sqlite') process.env.SWITCHYARD_DATA_DIR = db.config.dataDir;
        else {
          process.env.SWITCHYARD_DATABASE_URL = db.config.databaseUrl ?? '';
          process.env.SWITCHYARD_DATABASE_SCHEMA = db.config.pgSchema ?? '';
        }
        assert.equal(await keysCreate({ name: 'from cli' }), 0);
        const keyId = out.split('\t')[0] ?? '';
        assert.equal(await keysRevoke(keyId), 0);
      } finally {
        process.stdout.write = write;
        process.env = saved;
      }
      const rows = (await db.handle.stores.auditLog.list({ orgId: org.id }, { limit: 10 })).reverse();
      assert.deepEqual(
        rows.map((r) => [r.action, r.actor_type, r.actor_id]),
        [
          ['api_key.create', 'system', 'cli'],
          ['api_key.revoke', 'system', 'cli'],
        ],
      );
      const plaintext = out.split('\n')[1] ?? '';
      assert.ok(plaintext.length > 10);
      assert.ok(!JSON.stringify(rows).includes(plaintext));
      assert.match(rows[1]?.after ?? '', /revoked_at/);
      assert.match(rows[0]?.after ?? '', /"prefix":"sy-/);
      assert.deepEqual(await db.handle.stores.auditLog.verify(org.id), { ok: true, checked: 2, first_bad_id: null });
    });
  });
}
