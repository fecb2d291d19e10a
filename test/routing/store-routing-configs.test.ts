// Shared suite for the routing-config store, run on SQLite and (when reachable) PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation } from '../../src/store/index.ts';
import { createRoutingConfigStore, type RoutingConfigStore } from '../../src/store/routing-configs.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const content = (model: string) => ({
  name: 'Main',
  strategy: 'fallback',
  config: { attempts: [{ model, timeout_ms: 1000, provider_credential_id: 'prov_abc' }], retry_on: ['429'] },
  embeddingDimensions: null,
});

for (const d of await dialects()) {
  describe(`routing config store (${d.name})`, { skip: d.skip }, () => {
    let t: TestDb;
    let store: RoutingConfigStore;
    before(async () => {
      t = await d.open();
      store = createRoutingConfigStore(t.handle.db);
    });
    after(async () => t?.dispose());

    it('creates, versions, restores and soft-deletes', async () => {
      const c = await store.create({ orgId: 'org_1', projectId: null, slug: 'main', ...content('openai/a') });
      assert.equal(c.version, 1);
      assert.equal((await store.getBySlug('org_1', 'main'))?.id, c.id);
      const v2 = await store.addVersion('org_1', c.id, content('openai/b'));
      const v3 = await store.addVersion('org_1', c.id, content('openai/c'));
      assert.equal(v2?.version, 2);
      assert.equal(v3?.version, 3);
      const versions = await store.listVersions('org_1', c.id);
      assert.deepEqual(
        versions?.map((v) => v.version),
        [1, 2, 3],
      );
      const v1 = await store.getVersion('org_1', c.id, '1');
      assert.equal(v1?.id, versions?.[0].id);
      assert.equal((await store.getVersion('org_1', c.id, v1!.id))?.version, 1);
      const v4 = await store.addVersion('org_1', c.id, v1!, 1);
      assert.equal(v4?.version, 4);
      assert.deepEqual(v4?.config, v1?.config);
      assert.equal((await store.getVersion('org_1', c.id, '4'))?.restoredFrom, 1);
      assert.deepEqual(await store.referencingCredential('org_1', 'prov_abc'), ['@main']);
      assert.deepEqual(await store.referencingCredential('org_1', 'prov_ab'), []);
      assert.deepEqual(await store.referencingCredential('org_2', 'prov_abc'), []);
      await store.softDelete('org_1', c.id);
      assert.equal(await store.getBySlug('org_1', 'main'), undefined);
      assert.equal(await store.addVersion('org_1', c.id, content('openai/x')), undefined);
      assert.deepEqual(await store.referencingCredential('org_1', 'prov_abc'), []);
      const again = await store.create({ orgId: 'org_1', projectId: null, slug: 'main', ...content('openai/z') });
      assert.notEqual(again.id, c.id);
    });

    it('keeps live slugs unique per organization', async () => {
      await store.create({ orgId: 'org_3', projectId: null, slug: 'dup', ...content('openai/a') });
      await store.create({ orgId: 'org_4', projectId: null, slug: 'dup', ...content('openai/a') });
      await assert.rejects(
        store.create({ orgId: 'org_3', projectId: null, slug: 'dup', ...content('openai/a') }),
        (err) => isUniqueViolation(err),
      );
    });

    it('lists by project with a cursor', async () => {
      for (const s of ['l1', 'l2', 'l3']) {
        await store.create({ orgId: 'org_5', projectId: 'proj_a', slug: s, ...content('openai/a') });
      }
      await store.create({ orgId: 'org_5', projectId: 'proj_b', slug: 'l4', ...content('openai/a') });
      const first = await store.list('org_5', { projectId: 'proj_a', limit: 2 });
      assert.deepEqual(
        first.map((r) => r.slug),
        ['l1', 'l2'],
      );
      const rest = await store.list('org_5', { projectId: 'proj_a', limit: 2, afterId: first[1].id });
      assert.deepEqual(
        rest.map((r) => r.slug),
        ['l3'],
      );
      assert.equal((await store.list('org_5', { limit: 10 })).length, 4);
      const since = await store.changedSince('1970-01-01T00:00:00.000Z');
      assert.ok(since.length >= 4);
    });
  });
}
