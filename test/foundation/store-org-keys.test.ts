// Shared OrgKeyStore suite: the same cases on every dialect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/util/ids.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

for (const d of await dialects()) {
  describe(`OrgKeyStore on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => t?.dispose());

    test('orgs, meta and keys round-trip', async () => {
      const s = t.handle.stores.orgKeys;
      assert.equal(await s.firstOrg(), undefined);
      const org = await s.createOrg({ id: newId('org'), name: 'Acme' });
      assert.equal((await s.firstOrg())?.id, org.id);

      assert.equal(await s.getMeta('x'), undefined);
      await s.setMeta('x', '1');
      await s.setMeta('x', '2');
      assert.equal(await s.getMeta('x'), '2');

      const k = await s.createKey({
        id: newId('key'),
        orgId: org.id,
        projectId: null,
        name: 'admin',
        keyHash: 'h1',
        prefix: 'sy-abc',
      });
      assert.equal((await s.findByHash('h1'))?.id, k.id);
      assert.equal(await s.findByHash('nope'), undefined);
      assert.equal((await s.getKey(org.id, k.id))?.name, 'admin');
      assert.equal(await s.getKey('org_other', k.id), undefined);
    });

    test('duplicate hash is rejected', async () => {
      const s = t.handle.stores.orgKeys;
      const org = await s.firstOrg();
      assert.ok(org);
      await assert.rejects(
        s.createKey({ id: newId('key'), orgId: org.id, projectId: null, name: 'dup', keyHash: 'h1', prefix: 'p' }),
      );
    });

    test('list pages by id, revoke and project revoke update changedSince', async () => {
      const s = t.handle.stores.orgKeys;
      const org = await s.firstOrg();
      assert.ok(org);
      const since = new Date(Date.now() - 1).toISOString();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const k = await s.createKey({
          id: newId('key'),
          orgId: org.id,
          projectId: i < 2 ? 'proj_x' : null,
          name: `k${i}`,
          keyHash: `hash-${i}`,
          prefix: 'p',
        });
        ids.push(k.id);
      }
      const first = await s.listKeys(org.id, { limit: 3 });
      assert.equal(first.length, 3);
      const rest = await s.listKeys(org.id, { limit: 10, afterId: first[2]?.id });
      assert.equal(first.length + rest.length, 5);

      const revoked = await s.revokeKey(org.id, ids[3] ?? '');
      assert.ok(revoked?.revokedAt);
      assert.equal(await s.revokeProjectKeys(org.id, 'proj_x'), 2);
      assert.equal(await s.revokeProjectKeys(org.id, 'proj_x'), 0);
      const active = await s.listKeys(org.id, { limit: 10 });
      assert.equal(active.length, 2);
      assert.equal((await s.listKeys(org.id, { limit: 10, includeRevoked: true })).length, 5);

      const changed = await s.changedSince(since);
      const revokedIds = changed.filter((r) => r.revokedAt !== null).map((r) => r.id);
      assert.deepEqual(new Set(revokedIds), new Set([ids[0], ids[1], ids[3]]));
      assert.ok(changed.every((r) => typeof r.keyHash === 'string'));
    });
  });
}
