// Stores publish a change after every committed write the proxy must see, and routing-config versions
// stay consistent under concurrent writers; the same cases on every dialect.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LocalChangeBus } from '../../src/cluster/local/change-bus.ts';
import type { ChangeEvent, ChangeTopic } from '../../src/ports/change-bus.ts';
import { createStores, type Stores } from '../../src/store/index.ts';
import { newId } from '../../src/util/ids.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const TOPICS: ChangeTopic[] = ['api_key', 'credential', 'project', 'routing_config'];
const content = (model: string) => ({
  name: 'c',
  strategy: 'single',
  config: { model },
  embeddingDimensions: null,
});

for (const d of await dialects()) {
  describe(`store change events on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let stores: Stores;
    /** Each event with what the store returned for its entity while the event was delivered. */
    const seen: Array<{ ev: ChangeEvent; state: string }> = [];
    const failures: unknown[] = [];
    const bus = new LocalChangeBus({ onError: (err) => failures.push(err) });

    async function stateOf(ev: ChangeEvent): Promise<string> {
      switch (ev.topic) {
        case 'api_key': {
          const k = await stores.orgKeys.findAuthRow(ev.orgId, ev.id);
          return k ? (k.revokedAt ? 'revoked' : 'active') : 'missing';
        }
        case 'credential': {
          const p = await stores.credentials.get(ev.orgId, ev.id);
          return p ? (p.deletedAt ? 'deleted' : `name=${p.name}`) : 'missing';
        }
        case 'project': {
          const p = await stores.projects.get(ev.orgId, ev.id);
          return p ? (p.deletedAt ? 'deleted' : `name=${p.name}`) : 'missing';
        }
        case 'routing_config': {
          const c = await stores.routingConfigs.get(ev.orgId, ev.id);
          return c ? (c.deletedAt ? 'deleted' : `v${c.version}`) : 'missing';
        }
        case 'budget': {
          const b = await stores.budgets.get(ev.orgId, ev.id);
          return b ? (b.deletedAt ? 'deleted' : `name=${b.name}`) : 'missing';
        }
        case 'guardrail': {
          const g = await stores.guardrails.get(ev.orgId, ev.id);
          return g ? (g.deletedAt ? 'deleted' : `name=${g.name}`) : 'missing';
        }
        case 'model_setting': {
          const m = await stores.modelSettings.get(ev.orgId, ev.id);
          return m ? (m.deletedAt ? 'deleted' : `${m.kind}=${m.name}`) : 'missing';
        }
        // Published by the features that own them (webhooks, the semantic cache), not by these stores.
        case 'webhook_endpoint':
        case 'cache_entry':
          return 'not a store event';
      }
    }

    const drain = () => {
      assert.deepEqual(failures, []);
      return seen.splice(0).map((s) => `${s.ev.topic}:${s.ev.id}:${s.ev.orgId}:${s.state}`);
    };

    before(async () => {
      t = await d.open();
      stores = createStores(t.handle.db, bus);
      for (const topic of TOPICS) {
        bus.subscribe(topic, async (ev) => {
          seen.push({ ev, state: await stateOf(ev) });
        });
      }
    });
    after(async () => {
      await bus.close();
      await t?.dispose();
    });

    test('api keys: create, revoke (once), and revoking a project revokes each of its keys', async () => {
      const key = (id: string, projectId: string | null) =>
        stores.orgKeys.createKey({ id, orgId: 'org_a', projectId, name: id, keyHash: `h_${id}`, prefix: 'p' });
      await key('key_1', null);
      await key('key_2', 'proj_x');
      await key('key_3', 'proj_x');
      assert.deepEqual(drain(), [
        'api_key:key_1:org_a:active',
        'api_key:key_2:org_a:active',
        'api_key:key_3:org_a:active',
      ]);
      await stores.orgKeys.revokeKey('org_a', 'key_1');
      await stores.orgKeys.revokeKey('org_a', 'key_1');
      await stores.orgKeys.revokeKey('org_b', 'key_2');
      assert.deepEqual(drain(), ['api_key:key_1:org_a:revoked']);
      assert.equal(await stores.orgKeys.revokeProjectKeys('org_a', 'proj_x'), 2);
      assert.deepEqual(drain().sort(), ['api_key:key_2:org_a:revoked', 'api_key:key_3:org_a:revoked']);
    });

    test('projects: create, update, delete; no event for a write that changed nothing', async () => {
      const id = newId('proj');
      await stores.projects.create({ id, orgId: 'org_a', name: 'P', slug: id, description: null, settings: {} });
      await stores.projects.update('org_a', id, { name: 'Q' });
      await stores.projects.softDelete('org_a', id);
      await stores.projects.update('org_a', id, { name: 'R' });
      await stores.projects.softDelete('org_a', id);
      assert.deepEqual(drain(), [
        `project:${id}:org_a:name=P`,
        `project:${id}:org_a:name=Q`,
        `project:${id}:org_a:deleted`,
      ]);
    });

    test('provider credentials: create, rotate, delete', async () => {
      const id = newId('prov');
      await stores.credentials.create({
        id,
        orgId: 'org_a',
        vendor: 'openai',
        vendorId: 'openai',
        name: 'one',
        baseUrl: null,
        keyCiphertext: 'v1:x',
      });
      await stores.credentials.update('org_a', id, { keyCiphertext: 'v1:y', name: 'two' });
      await stores.credentials.softDelete('org_a', id);
      await stores.credentials.update('org_a', id, { name: 'three' });
      assert.deepEqual(drain(), [
        `credential:${id}:org_a:name=one`,
        `credential:${id}:org_a:name=two`,
        `credential:${id}:org_a:deleted`,
      ]);
    });

    test('routing configs: create, update, restore, delete; each event sees its committed version', async () => {
      const c = await stores.routingConfigs.create({ orgId: 'org_a', projectId: null, slug: 'ev', ...content('a') });
      await stores.routingConfigs.addVersion('org_a', c.id, content('b'));
      await stores.routingConfigs.addVersion('org_a', c.id, content('a'), 1);
      await stores.routingConfigs.softDelete('org_a', c.id);
      assert.equal(await stores.routingConfigs.addVersion('org_a', c.id, content('c')), undefined);
      assert.equal(await stores.routingConfigs.softDelete('org_a', c.id), undefined);
      assert.deepEqual(drain(), [
        `routing_config:${c.id}:org_a:v1`,
        `routing_config:${c.id}:org_a:v2`,
        `routing_config:${c.id}:org_a:v3`,
        `routing_config:${c.id}:org_a:deleted`,
      ]);
    });

    test('concurrent new versions of one config get distinct, consecutive numbers', async () => {
      const c = await stores.routingConfigs.create({ orgId: 'org_a', projectId: null, slug: 'race', ...content('a') });
      const out = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stores.routingConfigs.addVersion('org_a', c.id, content(`m${i}`))),
      );
      assert.deepEqual(
        out.map((r) => r?.version).sort((a = 0, b = 0) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 2),
      );
      assert.equal((await stores.routingConfigs.get('org_a', c.id))?.version, 21);
      drain();
    });

    // The cause of a flaky proxy test: the request-log worker commits on its own SQLite connection; a
    // version write that read before writing failed at once with SQLITE_BUSY when a commit landed
    // between its read and its write (busy_timeout does not cover that upgrade), so a restore answered
    // 500 and the config stayed on the old version.
    test('new versions succeed while another connection keeps committing', { skip: d.name !== 'sqlite' }, async () => {
      const c = await stores.routingConfigs.create({ orgId: 'org_a', projectId: null, slug: 'busy', ...content('a') });
      const file = join(t.config.dataDir, 'switchyard.db');
      const writer = new Worker(
        `const { parentPort, workerData } = require('node:worker_threads');
         const SQLite = require(workerData.module);
         const db = new SQLite(workerData.file);
         db.pragma('busy_timeout = 5000');
         db.exec('CREATE TABLE IF NOT EXISTS busy_probe (x INTEGER)');
         const insert = db.prepare('INSERT INTO busy_probe VALUES (1)');
         let stop = false;
         parentPort.on('message', () => { stop = true; });
         parentPort.postMessage('ready');
         const loop = () => { for (let i = 0; i < 200; i++) insert.run(); if (stop) { db.close(); parentPort.close(); } else setImmediate(loop); };
         loop();`,
        { eval: true, workerData: { file, module: fileURLToPath(import.meta.resolve('better-sqlite3')) } },
      );
      await new Promise((r) => writer.once('message', r));
      try {
        for (let i = 0; i < 300; i++) {
          const r = await stores.routingConfigs.addVersion('org_a', c.id, content(`m${i}`));
          assert.equal(r?.version, i + 2);
        }
      } finally {
        writer.postMessage('stop');
        await new Promise((r) => writer.once('exit', r));
      }
      drain();
    });
  });
}
