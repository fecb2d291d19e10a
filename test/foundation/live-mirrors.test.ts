// Live mirrors fed by the change bus, on every dialect:
// - a management write is visible to the very next proxy call, every time (no poll, no sleep);
// - a slow poll that read a row before a write never overwrites what the write's event applied;
// - a write by another process (a second store on the same database, no shared bus) is seen by the poll.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { LocalChangeBus } from '../../src/cluster/local/change-bus.ts';
import { hashApiKey } from '../../src/crypto/api-keys.ts';
import { credentialAad } from '../../src/crypto/credential-aad.ts';
import { SecretBox } from '../../src/crypto/secretbox.ts';
import { CredentialMirror } from '../../src/live/credentials.ts';
import { PrincipalMirror } from '../../src/live/principals.ts';
import { ProjectMirror } from '../../src/live/projects.ts';
import { type ConfigCompiler, RoutingConfigMirror } from '../../src/live/routing-configs.ts';
import { createStores, openStore, type StoreHandle, type Stores } from '../../src/store/index.ts';
import { newId } from '../../src/util/ids.ts';
import { createLogger } from '../../src/util/logger.ts';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

type Json = Record<string, unknown>;
const logger = createLogger('silent');
const NEVER_MS = 3_600_000;
/** The mirrors here only need to tell versions apart; routing's compiler is wired in services.ts. */
const compile: ConfigCompiler<Record<string, unknown>> = (strategy, config) => ({ strategy, compiled: config });
const content = (model: string) => ({ name: 'c', strategy: 'single', config: { model }, embeddingDimensions: null });

/** Holds the next read that passes through `slow` after it has read, until released. */
class ReadHold {
  #armed: { reached: () => void; release: Promise<void> } | undefined;

  arm(): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const reachedP = new Promise<void>((r) => {
      reached = r;
    });
    const releaseP = new Promise<void>((r) => {
      release = r;
    });
    this.#armed = { reached, release: releaseP };
    return { reached: reachedP, release };
  }

  async slow<T>(read: Promise<T>): Promise<T> {
    const rows = await read;
    const h = this.#armed;
    this.#armed = undefined;
    if (h) {
      h.reached();
      await h.release;
    }
    return rows;
  }
}

async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await check()) return Date.now() - t0;
    if (Date.now() - t0 > ms) throw new Error(`not visible within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

for (const d of await dialects()) {
  describe(`live mirrors on ${d.name}`, { skip: d.skip }, () => {
    describe('management writes are visible to the next call at once', () => {
      let fake: FakeUpstream;
      let gw: Gateway;
      const alpha = (model: string, key?: string) =>
        call(key ? { url: gw.url, adminKey: key } : gw, 'POST', '/alpha/v1/chat/completions', {
          model,
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 5,
        });

      before(async () => {
        fake = await startFakeUpstream({ port: 0 });
        // The poll never runs during the test: only change events can make a write visible.
        gw = await startGateway({ postgres: d.name === 'postgres', config: { refreshIntervalMs: NEVER_MS } });
        const p = await call(gw, 'POST', '/manage/v1/providers', {
          vendor: 'openai',
          api_key: 'sk-live-0000000000000000',
          base_url: `${fake.url}/openai/v1`,
        });
        assert.equal(p.status, 201, p.text);
      });
      after(async () => {
        await gw?.close();
        await fake?.close();
      });

      test('routing config version life cycle, 50 rounds of update, update, restore', async () => {
        const c = await call(gw, 'POST', '/manage/v1/routing-configs', {
          name: 'life',
          slug: 'life',
          strategy: 'single',
          config: { model: 'openai/gpt-4o-mini' },
        });
        assert.equal(c.status, 201, c.text);
        const id = (c.body as Json).id as string;
        const served = async () => {
          const r = await alpha('@life');
          assert.equal(r.status, 200, r.text);
          return [r.headers.get('x-svc-config-version'), r.headers.get('x-svc-model-used')];
        };
        assert.deepEqual(await served(), ['1', 'gpt-4o-mini']);
        let version = 1;
        for (let round = 0; round < 50; round++) {
          const u1 = await call(gw, 'PATCH', `/manage/v1/routing-configs/${id}`, {
            config: { model: 'openai/gpt-4o' },
          });
          assert.equal(u1.status, 200, u1.text);
          assert.deepEqual(await served(), [String(++version), 'gpt-4o'], `round ${round}, first update`);
          const u2 = await call(gw, 'PATCH', `/manage/v1/routing-configs/${id}`, {
            config: { model: 'openai/gpt-4.1-mini' },
          });
          assert.equal(u2.status, 200, u2.text);
          assert.deepEqual(await served(), [String(++version), 'gpt-4.1-mini'], `round ${round}, second update`);
          const r = await call(gw, 'POST', `/manage/v1/routing-configs/${id}/versions/1/restore`);
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(await served(), [String(++version), 'gpt-4o-mini'], `round ${round}, restore`);
        }
        assert.equal((await call(gw, 'DELETE', `/manage/v1/routing-configs/${id}`)).status, 200);
        assert.equal((await alpha('@life')).status, 404);
      });

      test('api keys: a new key works at once, a revoked one fails at once (50 rounds)', async () => {
        for (let round = 0; round < 50; round++) {
          const created = await call(gw, 'POST', '/manage/v1/api-keys', { name: `k${round}` });
          assert.equal(created.status, 201, created.text);
          const { id, key } = created.body as { id: string; key: string };
          assert.equal((await alpha('openai/gpt-4o-mini', key)).status, 200, `round ${round}, new key`);
          assert.equal((await call(gw, 'DELETE', `/manage/v1/api-keys/${id}`)).status, 200);
          assert.equal((await alpha('openai/gpt-4o-mini', key)).status, 401, `round ${round}, revoked key`);
        }
      });

      test('project keys stop working with the project; settings and rotated credentials apply at once', async () => {
        const svc = gw.app.svc;
        const p = await call(gw, 'POST', '/manage/v1/projects', { name: 'Live' });
        const projectId = (p.body as Json).id as string;
        for (let round = 0; round < 20; round++) {
          const logBodies = round % 2 === 0;
          await call(gw, 'PATCH', `/manage/v1/projects/${projectId}`, { settings: { log_bodies: logBodies } });
          assert.equal(svc.projects.cached(projectId)?.settings.log_bodies, logBodies);
        }
        const k = (await call(gw, 'POST', '/manage/v1/api-keys', { project_id: projectId })).body as { key: string };
        assert.equal((await alpha('openai/gpt-4o-mini', k.key)).status, 200);
        assert.equal((await call(gw, 'DELETE', `/manage/v1/projects/${projectId}`)).status, 200);
        assert.equal(svc.projects.cached(projectId)?.deleted, true);
        assert.equal((await alpha('openai/gpt-4o-mini', k.key)).status, 401);

        const prov = await call(gw, 'POST', '/manage/v1/providers', { vendor: 'together', api_key: 'tg-key-round-x' });
        const provId = (prov.body as Json).id as string;
        const orgId = svc.bootstrap.orgId;
        assert.equal(svc.credentials.get(orgId, provId)?.credential.apiKey, 'tg-key-round-x');
        for (let round = 0; round < 20; round++) {
          const r = await call(gw, 'PATCH', `/manage/v1/providers/${provId}`, { api_key: `tg-key-round-${round}` });
          assert.equal(r.status, 200, r.text);
          assert.equal(svc.credentials.get(orgId, provId)?.credential.apiKey, `tg-key-round-${round}`);
        }
        assert.equal((await call(gw, 'DELETE', `/manage/v1/providers/${provId}`)).status, 200);
        assert.equal(svc.credentials.get(orgId, provId), undefined);
      });
    });

    describe('a stale poll row never overwrites a newer applied one', () => {
      let t: TestDb;
      let bus: LocalChangeBus;
      let stores: Stores;
      const hold = new ReadHold();
      before(async () => {
        t = await d.open();
        bus = new LocalChangeBus();
        stores = createStores(t.handle.db, bus);
      });
      after(async () => {
        await bus.close();
        await t?.dispose();
      });

      test('routing configs: an older version, or a live row after the delete', async () => {
        const src = stores.routingConfigs;
        const mirror = new RoutingConfigMirror(
          { ...src, changedSince: (s) => hold.slow(src.changedSince(s)) },
          bus,
          compile,
          logger,
          NEVER_MS,
        );
        try {
          await mirror.start();
          const c = await src.create({ orgId: 'org_a', projectId: null, slug: 'stale', ...content('one') });
          assert.equal(mirror.get('org_a', 'stale')?.version, 1);
          for (let v = 2; v <= 4; v++) {
            const h = hold.arm();
            const poll = mirror.refresh();
            await h.reached; // the poll has read version v - 1
            await src.addVersion('org_a', c.id, content(`m${v}`), v === 4 ? 1 : undefined);
            assert.equal(mirror.get('org_a', 'stale')?.version, v);
            h.release();
            await poll;
            assert.equal(mirror.get('org_a', 'stale')?.version, v, `the poll's version ${v - 1} came back`);
          }
          const h = hold.arm();
          const poll = mirror.refresh();
          await h.reached;
          await src.softDelete('org_a', c.id);
          assert.equal(mirror.get('org_a', 'stale'), undefined);
          h.release();
          await poll;
          assert.equal(mirror.get('org_a', 'stale'), undefined, 'the deleted config came back');
        } finally {
          mirror.stop();
        }
      });

      test('api keys: a revoked key is never resurrected by a poll or a first-use read', async () => {
        const src = stores.orgKeys;
        const mirror = new PrincipalMirror(
          {
            ...src,
            changedSince: (s) => hold.slow(src.changedSince(s)),
            findByHash: (h) => hold.slow(src.findByHash(h)),
          },
          bus,
          logger,
          NEVER_MS,
        );
        const newKey = async (key: string, where: Stores) => {
          const id = newId('key');
          await where.orgKeys.createKey({
            id,
            orgId: 'org_a',
            projectId: null,
            name: key,
            keyHash: hashApiKey(key),
            prefix: 'x',
          });
          return id;
        };
        try {
          // Poll path: the poll read the key while active; the revocation's event lands first.
          const id = await newKey('sy-stale-poll-key', stores);
          assert.equal((mirror.authenticate('sy-stale-poll-key') as { keyId: string } | undefined)?.keyId, id);
          const h = hold.arm();
          const poll = mirror.refresh();
          await h.reached;
          await src.revokeKey('org_a', id);
          assert.equal(mirror.authenticate('sy-stale-poll-key'), undefined);
          h.release();
          await poll;
          assert.equal(await mirror.authenticate('sy-stale-poll-key'), undefined);

          // First-use path: a key created elsewhere (no event here) is read by hash, then revoked here.
          const other = await newKey('sy-stale-first-use', t.handle.stores);
          const h2 = hold.arm();
          const pending = mirror.authenticate('sy-stale-first-use');
          await h2.reached;
          await src.revokeKey('org_a', other);
          h2.release();
          assert.equal(await pending, undefined);
          assert.equal(await mirror.authenticate('sy-stale-first-use'), undefined);
        } finally {
          mirror.stop();
        }
      });

      test('projects and credentials: the poll does not bring back the previous row', async () => {
        const projects = new ProjectMirror(
          { ...stores.projects, changedSince: (s) => hold.slow(stores.projects.changedSince(s)) },
          bus,
          logger,
          NEVER_MS,
        );
        const box = new SecretBox(randomBytes(32));
        const credentials = new CredentialMirror(
          { ...stores.credentials, changedSince: (s) => hold.slow(stores.credentials.changedSince(s)) },
          box,
          bus,
          logger,
          NEVER_MS,
        );
        try {
          await Promise.all([projects.start(), credentials.start()]);
          const pid = newId('proj');
          await stores.projects.create({
            id: pid,
            orgId: 'org_a',
            name: 'A',
            slug: pid,
            description: null,
            settings: {},
          });
          const h = hold.arm();
          const poll = projects.refresh();
          await h.reached;
          await stores.projects.update('org_a', pid, { name: 'B', settings: { log_bodies: false } });
          h.release();
          await poll;
          assert.equal(projects.cached(pid)?.name, 'B');
          assert.equal(projects.cached(pid)?.settings.log_bodies, false);

          const cid = newId('prov');
          await stores.credentials.create({
            id: cid,
            orgId: 'org_a',
            vendor: 'openai',
            vendorId: 'openai',
            name: 'o',
            baseUrl: null,
            keyCiphertext: box.encrypt('sk-old', credentialAad('org_a', cid)),
          });
          const h2 = hold.arm();
          const poll2 = credentials.refresh();
          await h2.reached;
          await stores.credentials.update('org_a', cid, {
            keyCiphertext: box.encrypt('sk-new', credentialAad('org_a', cid)),
          });
          h2.release();
          await poll2;
          assert.equal(credentials.get('org_a', cid)?.credential.apiKey, 'sk-new');

          const h3 = hold.arm();
          const poll3 = credentials.refresh();
          await h3.reached;
          await stores.credentials.softDelete('org_a', cid);
          h3.release();
          await poll3;
          assert.equal(credentials.get('org_a', cid), undefined);
        } finally {
          projects.stop();
          credentials.stop();
        }
      });
    });

    describe("another process's writes are seen by the poll", () => {
      const INTERVAL_MS = 100;
      let t: TestDb;
      let other: StoreHandle;
      let bus: LocalChangeBus;
      let stores: Stores;
      before(async () => {
        t = await d.open();
        // A second store on the same database with no bus shared: the CLI, or an instance in another process.
        other = await openStore(t.config);
        bus = new LocalChangeBus();
        stores = createStores(t.handle.db, bus);
      });
      after(async () => {
        await other?.close();
        await bus.close();
        await t?.dispose();
      });

      test('configs, keys, credentials and projects within the refresh interval', async () => {
        const box = new SecretBox(randomBytes(32));
        const configs = new RoutingConfigMirror(stores.routingConfigs, bus, compile, logger, INTERVAL_MS);
        const principals = new PrincipalMirror(stores.orgKeys, bus, logger, INTERVAL_MS);
        const credentials = new CredentialMirror(stores.credentials, box, bus, logger, INTERVAL_MS);
        const projects = new ProjectMirror(stores.projects, bus, logger, INTERVAL_MS);
        const elsewhere = other.stores;
        // A poll runs every 100 ms; the bound leaves room for a loaded machine.
        const bound = 1000;
        try {
          await Promise.all([configs.start(), credentials.start(), projects.start()]);
          const c = await elsewhere.routingConfigs.create({ orgId: 'o', projectId: null, slug: 'x', ...content('a') });
          await within(bound, () => configs.get('o', 'x')?.version === 1);
          await elsewhere.routingConfigs.addVersion('o', c.id, content('b'));
          await within(bound, () => configs.get('o', 'x')?.version === 2);
          await elsewhere.routingConfigs.softDelete('o', c.id);
          await within(bound, () => configs.get('o', 'x') === undefined);

          const keyId = newId('key');
          await stores.orgKeys.createKey({
            id: keyId,
            orgId: 'o',
            projectId: null,
            name: 'k',
            keyHash: hashApiKey('sy-elsewhere-revoked'),
            prefix: 'x',
          });
          assert.ok(principals.authenticate('sy-elsewhere-revoked'));
          await elsewhere.orgKeys.revokeKey('o', keyId);
          await within(bound, () => principals.authenticate('sy-elsewhere-revoked') === undefined);

          const cid = newId('prov');
          await elsewhere.credentials.create({
            id: cid,
            orgId: 'o',
            vendor: 'anthropic',
            vendorId: 'anthropic',
            name: 'a',
            baseUrl: null,
            keyCiphertext: box.encrypt('sk-ant-1', credentialAad('o', cid)),
          });
          await within(bound, () => credentials.forVendor('o', 'anthropic')[0]?.credential.apiKey === 'sk-ant-1');
          await elsewhere.credentials.update('o', cid, {
            keyCiphertext: box.encrypt('sk-ant-2', credentialAad('o', cid)),
          });
          await within(bound, () => credentials.get('o', cid)?.credential.apiKey === 'sk-ant-2');

          const pid = newId('proj');
          await elsewhere.projects.create({
            id: pid,
            orgId: 'o',
            name: 'P',
            slug: 'p',
            description: null,
            settings: {},
          });
          await within(bound, () => projects.cached(pid)?.name === 'P');
          await elsewhere.projects.softDelete('o', pid);
          await within(bound, () => projects.cached(pid)?.deleted === true);
        } finally {
          for (const m of [configs, principals, credentials, projects]) m.stop();
        }
      });
    });
  });
}
