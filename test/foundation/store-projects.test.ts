// Shared ProjectStore and ProviderStore suite: the same cases on every dialect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isUniqueViolation } from '../../src/store/index.ts';
import { newId } from '../../src/util/ids.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

for (const d of await dialects()) {
  describe(`ProjectStore and ProviderStore on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => t?.dispose());

    test('projects: create, slug uniqueness, list order, update, soft delete', async () => {
      const s = t.handle.stores.projects;
      const since = new Date(Date.now() - 1).toISOString();
      const a = await s.create({
        id: newId('proj'),
        orgId: 'org_a',
        name: 'A',
        slug: 'a',
        description: null,
        settings: { log_bodies: false },
      });
      const b = await s.create({
        id: newId('proj'),
        orgId: 'org_a',
        name: 'B',
        slug: 'a-2',
        description: 'x',
        settings: {},
      });
      await s.create({ id: newId('proj'), orgId: 'org_b', name: 'A', slug: 'a', description: null, settings: {} });
      await assert.rejects(
        s.create({ id: newId('proj'), orgId: 'org_a', name: 'dup', slug: 'a', description: null, settings: {} }),
        (err: unknown) => isUniqueViolation(err),
      );
      assert.deepEqual((await s.slugsLike('org_a', 'a')).sort(), ['a', 'a-2']);
      assert.deepEqual(await s.slugsLike('org_a', 'a_'), []);
      await s.create({ id: newId('proj'), orgId: 'org_c', name: 'U', slug: 'x_y', description: null, settings: {} });
      await s.create({ id: newId('proj'), orgId: 'org_c', name: 'V', slug: 'xzy', description: null, settings: {} });
      assert.deepEqual(await s.slugsLike('org_c', 'x_'), ['x_y']);
      assert.deepEqual((await s.get('org_a', a.id))?.settings, { log_bodies: false });

      const page1 = await s.list('org_a', { limit: 1 });
      assert.deepEqual(
        page1.map((p) => p.id),
        [a.id],
      );
      const page2 = await s.list('org_a', { limit: 5, afterId: a.id });
      assert.deepEqual(
        page2.map((p) => p.id),
        [b.id],
      );

      const upd = await s.update('org_a', b.id, { name: 'B2', description: null });
      assert.equal(upd?.name, 'B2');
      assert.equal(upd?.description, null);
      const del = await s.softDelete('org_a', b.id);
      assert.ok(del?.deletedAt);
      assert.equal((await s.list('org_a', { limit: 5 })).length, 1);
      assert.equal((await s.list('org_a', { limit: 5, includeDeleted: true })).length, 2);
      assert.equal((await s.update('org_a', b.id, { name: 'zombie' }))?.name, 'B2');
      assert.ok((await s.changedSince(since)).length >= 3);
    });

    test('providers: create, list, atomic key update, soft delete, references hook', async () => {
      const s = t.handle.stores.credentials;
      const id = newId('prov');
      const p = await s.create({
        id,
        orgId: 'org_a',
        vendor: 'vendor_2',
        vendorId: 'anthropic',
        name: 'main',
        baseUrl: null,
        keyCiphertext: 'v1:old',
      });
      assert.equal(p.status, 'active');
      assert.equal((await s.get('org_a', id))?.vendor, 'vendor_2');
      assert.equal(await s.get('org_b', id), undefined);
      const rotated = await s.update('org_a', id, { keyCiphertext: 'v1:new', verifiedAt: new Date().toISOString() });
      assert.equal(rotated?.keyCiphertext, 'v1:new');
      assert.ok(rotated?.verifiedAt);
      assert.equal((await s.list('org_a')).length, 1);
      assert.equal((await s.listAllActive()).length, 1);
      assert.deepEqual(await s.referencedByConfigs('org_a', id), []);
      await s.softDelete('org_a', id);
      assert.equal((await s.list('org_a')).length, 0);
      assert.equal((await s.listAllActive()).length, 0);
      assert.equal((await s.get('org_a', id))?.status, 'deleted');
    });
  });
}
