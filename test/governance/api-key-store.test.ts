// Storage of the key controls (migration 150) on every dialect: allowed models, expiry, metadata,
// rotation (lookup by either hash), last_used_at without touching updated_at, and the principal
// mirror built over the store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LocalChangeBus } from '../../src/cluster/local/change-bus.ts';
import { hashApiKey } from '../../src/crypto/api-keys.ts';
import { PrincipalMirror } from '../../src/live/principals.ts';
import { newId } from '../../src/util/ids.ts';
import { createLogger } from '../../src/util/logger.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

for (const d of await dialects()) {
  describe(`API key controls on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let orgId: string;
    before(async () => {
      t = await d.open();
      orgId = (await t.handle.stores.orgKeys.createOrg({ id: newId('org'), name: 'Acme' })).id;
    });
    after(async () => t?.dispose());

    test('controls round-trip through create and update', async () => {
      const s = t.handle.stores.orgKeys;
      const k = await s.createKey({
        id: newId('key'),
        orgId,
        projectId: null,
        name: 'ctl',
        keyHash: 'ctl-h1',
        prefix: 'sy-ctl',
        allowedModels: ['gpt-4o*', '@support*'],
        expiresAt: '2030-01-01T00:00:00.000Z',
        metadata: { team: 'search' },
      });
      assert.deepEqual(k.allowedModels, ['gpt-4o*', '@support*']);
      assert.equal(k.expiresAt, '2030-01-01T00:00:00.000Z');
      assert.deepEqual(k.metadata, { team: 'search' });
      assert.equal(k.lastUsedAt, null);
      const u = await s.updateKey(orgId, k.id, { allowedModels: null, metadata: { a: 'b' }, expiresAt: null });
      assert.equal(u?.allowedModels, null);
      assert.equal(u?.expiresAt, null);
      assert.deepEqual(u?.metadata, { a: 'b' });
      assert.equal(u?.name, 'ctl');
    });

    test('rotation: both hashes find the key until it rotates again; grace null keeps none', async () => {
      const s = t.handle.stores.orgKeys;
      const k = await s.createKey({ id: newId('key'), orgId, projectId: null, name: 'r', keyHash: 'r1', prefix: 'p1' });
      const until = new Date(Date.now() + 60_000).toISOString();
      const r = await s.rotateKey(orgId, k.id, { keyHash: 'r2', prefix: 'p2', previousExpiresAt: until });
      assert.equal(r?.prefix, 'p2');
      assert.equal(r?.previousKeyExpiresAt, until);
      assert.equal((await s.findByHash('r1'))?.id, k.id);
      assert.equal((await s.findByHash('r2'))?.previousKeyHash, 'r1');
      await s.rotateKey(orgId, k.id, { keyHash: 'r3', prefix: 'p3', previousExpiresAt: null });
      assert.equal(await s.findByHash('r1'), undefined);
      assert.equal(await s.findByHash('r2'), undefined);
      assert.equal((await s.findByHash('r3'))?.previousKeyExpiresAt, null);
      await s.revokeKey(orgId, k.id);
      assert.equal(await s.rotateKey(orgId, k.id, { keyHash: 'r4', prefix: 'p4', previousExpiresAt: null }), undefined);
    });

    test('touchKeys sets last_used_at and leaves updated_at alone', async () => {
      const s = t.handle.stores.orgKeys;
      const k = await s.createKey({ id: newId('key'), orgId, projectId: null, name: 't', keyHash: 't1', prefix: 't' });
      const at = '2031-05-05T05:05:05.000Z';
      await s.touchKeys(new Map([[k.id, at]]));
      const got = await s.getKey(orgId, k.id);
      assert.equal(got?.lastUsedAt, at);
      assert.equal(got?.updatedAt, k.updatedAt);
    });

    test('the mirror maps both plaintexts after a rotation and compiles the allow-list', async () => {
      const s = t.handle.stores.orgKeys;
      const mirror = new PrincipalMirror(s, new LocalChangeBus(), createLogger('silent'), 60_000);
      try {
        const k = await s.createKey({
          id: newId('key'),
          orgId,
          projectId: null,
          name: 'm',
          keyHash: hashApiKey('sy-mirror-old'),
          prefix: 'sy-m',
          allowedModels: ['gpt-4o*'],
        });
        const before = await mirror.authenticate('sy-mirror-old');
        assert.ok(before?.modelAllow?.test('openai/gpt-4o-mini'));
        assert.equal(before?.graceEndsMs, null);
        const until = Date.now() + 60_000;
        await s.rotateKey(orgId, k.id, {
          keyHash: hashApiKey('sy-mirror-new'),
          prefix: 'sy-n',
          previousExpiresAt: new Date(until).toISOString(),
        });
        await mirror.refresh();
        assert.equal((await mirror.authenticate('sy-mirror-old'))?.graceEndsMs, until);
        assert.equal((await mirror.authenticate('sy-mirror-new'))?.keyId, k.id);
      } finally {
        mirror.stop();
      }
    });
  });
}
