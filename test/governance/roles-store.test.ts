// Key roles in the store (migration 175) on every dialect: keys made before roles become admin
// (org-wide) or inference (project), a role round-trips through create and update, and a row the
// current code cannot read (no role, or one no release writes) falls back safely.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { down, up } from '../../src/store/migrations/175_api_key_roles.ts';
import { newId } from '../../src/util/ids.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

for (const d of await dialects()) {
  describe(`API key roles on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let orgId: string;
    before(async () => {
      t = await d.open();
      orgId = (await t.handle.stores.orgKeys.createOrg({ id: newId('org'), name: 'Acme' })).id;
    });
    after(async () => t?.dispose());

    const newKey = (projectId: string | null, extra: { role?: 'viewer' } = {}) =>
      t.handle.stores.orgKeys.createKey({
        id: newId('key'),
        orgId,
        projectId,
        name: 'k',
        keyHash: `hash-${newId('key')}`,
        prefix: 'sy-x',
        ...extra,
      });

    test('the migration gives existing keys the role their scope had', async () => {
      const project = await t.handle.stores.projects.create({
        id: newId('proj'),
        orgId,
        name: 'P',
        slug: `p-${Date.now()}`,
        description: null,
        settings: {},
      });
      const db = t.handle.db as unknown as Kysely<unknown>;
      // Back to the schema before roles, with one key of each scope, then forward again.
      await down(db);
      const org = await newKeyWithoutRole(db, null);
      const scoped = await newKeyWithoutRole(db, project.id);
      await up(db);
      assert.equal((await t.handle.stores.orgKeys.getKey(orgId, org))?.role, 'admin');
      assert.equal((await t.handle.stores.orgKeys.getKey(orgId, scoped))?.role, 'inference');
    });

    async function newKeyWithoutRole(db: Kysely<unknown>, projectId: string | null): Promise<string> {
      const id = newId('key');
      const now = new Date().toISOString();
      await (db as Kysely<{ api_keys: Record<string, string | null> }>)
        .insertInto('api_keys')
        .values({
          id,
          org_id: orgId,
          project_id: projectId,
          name: 'old',
          key_hash: `hash-${newId('key')}`,
          prefix: 'sy-old',
          created_at: now,
          updated_at: now,
        })
        .execute();
      return id;
    }

    test('a role round-trips through create and update, and reaches the auth row', async () => {
      const s = t.handle.stores.orgKeys;
      const k = await newKey(null, { role: 'viewer' });
      assert.equal(k.role, 'viewer');
      assert.equal((await s.updateKey(orgId, k.id, { role: 'developer' }))?.role, 'developer');
      assert.equal((await s.findAuthRow(orgId, k.id))?.role, 'developer');
      assert.equal((await s.updateKey(orgId, k.id, { name: 'renamed' }))?.role, 'developer', 'kept when not named');
    });

    test('a missing role reads as the scope default, an unknown one as inference', async () => {
      const s = t.handle.stores.orgKeys;
      const org = await newKey(null, { role: 'viewer' });
      await t.handle.db.updateTable('api_keys').set({ role: null }).where('id', '=', org.id).execute();
      assert.equal((await s.getKey(orgId, org.id))?.role, 'admin');
      await t.handle.db.updateTable('api_keys').set({ role: 'superuser' }).where('id', '=', org.id).execute();
      assert.equal((await s.getKey(orgId, org.id))?.role, 'inference');
    });
  });
}
