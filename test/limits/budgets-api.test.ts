// Budgets over REST (CRUD, validation, soft delete), API-key and project rate limits round trips, the
// budget store's once-only alert record and the budget mirror, on every dialect. Spend figures belong
// to the limits engine's own tests; here a status is only checked for its shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LocalChangeBus } from '../../src/cluster/local/change-bus.ts';
import { BudgetMirror } from '../../src/live/budgets.ts';
import type { DomainEvent } from '../../src/ports/domain-events.ts';
import type { NewBudget } from '../../src/store/budgets.ts';
import { createStores } from '../../src/store/index.ts';
import type { WebhookTables } from '../../src/store/webhooks-schema.ts';
import { newId } from '../../src/util/ids.ts';
import { createLogger } from '../../src/util/logger.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

type Json = Record<string, unknown>;
interface ErrorBody {
  error: { code: string; param: string | null; message: string };
}

const STATUS_KEYS = [
  'exceeded',
  'forecast_usd',
  'period_end',
  'period_start',
  'remaining_usd',
  'reserved_usd',
  'spent_usd',
].sort();

function assertStatusShape(status: unknown, what: string): void {
  assert.ok(status !== null && typeof status === 'object', `${what}: status is an object`);
  assert.deepEqual(Object.keys(status).sort(), STATUS_KEYS, what);
}

for (const d of await dialects()) {
  describe(`budgets API on ${d.name}`, { skip: d.skip }, () => {
    let gw: Gateway;
    const api = (method: string, path: string, body?: unknown) => call(gw, method, path, body);
    const create = async (body: Json) => {
      const r = await api('POST', '/manage/v1/budgets', body);
      assert.equal(r.status, 201, r.text);
      return r.body as Json;
    };

    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres' });
    });
    after(async () => {
      await gw?.close();
    });

    test('create with defaults, get, list, patch, soft delete', async () => {
      const project = (await api('POST', '/manage/v1/projects', { name: 'budgeted' })).body as Json;
      const org = await create({ name: 'org monthly', scope: { type: 'org' }, period: 'monthly', limit_usd: 100 });
      assert.match(String(org.id), /^budget_[0-9a-z]{26}$/);
      assert.equal(org.object, 'budget');
      assert.deepEqual(org.scope, { type: 'org' });
      assert.deepEqual(org.thresholds, [0.5, 0.8, 1.0]);
      assert.equal(org.action, 'block');
      assert.equal(org.models, null);
      assert.equal(org.limit_usd, 100);
      assert.equal(org.deleted_at, null);
      assert.equal('members' in org, false);
      assertStatusShape(org.status, 'org budget');

      const proj = await create({
        name: 'one project',
        scope: { type: 'project', id: project.id },
        period: 'daily',
        limit_usd: 2.5,
        thresholds: [1, 0.25, 0.25, 0.75],
        action: 'alert_only',
        models: ['gpt-4o*', 'anthropic/claude-?-*'],
      });
      assert.deepEqual(proj.scope, { type: 'project', id: project.id });
      assert.deepEqual(proj.thresholds, [0.25, 0.75, 1], 'sorted and de-duplicated');
      assert.deepEqual(proj.models, ['gpt-4o*', 'anthropic/claude-?-*']);
      assertStatusShape(proj.status, 'project budget');

      const perUser = await create({ name: 'each user', scope: { type: 'end_user' }, period: 'weekly', limit_usd: 1 });
      assert.equal(perUser.status, null, 'a per-member budget has no single status');
      assert.ok(Array.isArray(perUser.members));
      const tag = await create({
        name: 'tag',
        scope: { type: 'tag', value: 'team=search' },
        period: 'total',
        limit_usd: 9,
      });
      assert.deepEqual(tag.scope, { type: 'tag', value: 'team=search' });

      const got = await api('GET', `/manage/v1/budgets/${perUser.id}`);
      assert.equal(got.status, 200);
      assert.equal((got.body as Json).status, null);
      for (const m of (got.body as { members: Array<{ member: unknown; status: unknown }> }).members) {
        assert.equal(typeof m.member, 'string');
        assertStatusShape(m.status, 'member');
      }
      const one = await api('GET', `/manage/v1/budgets/${perUser.id}?member=user-1`);
      assert.equal(one.status, 200);
      assertStatusShape((one.body as Json).status, 'one member');
      assert.equal('members' in (one.body as Json), false);

      const page1 = await api('GET', '/manage/v1/budgets?limit=3');
      const p1 = page1.body as { data: Json[]; has_more: boolean; next_cursor: string };
      assert.equal(p1.data.length, 3);
      assert.equal(p1.has_more, true);
      const p2 = (await api('GET', `/manage/v1/budgets?limit=3&cursor=${p1.next_cursor}`)).body as { data: Json[] };
      const listed = [...p1.data, ...p2.data];
      assert.deepEqual(
        listed.map((b) => b.id),
        [org.id, proj.id, perUser.id, tag.id],
      );
      for (const b of listed) assert.equal('members' in b, false);
      assert.equal(listed[2].status, null);
      assertStatusShape(listed[0].status, 'listed org budget');

      const patched = await api('PATCH', `/manage/v1/budgets/${proj.id}`, {
        name: 'renamed',
        limit_usd: 5,
        thresholds: [0.9, 0.5, 0.9],
        action: 'block',
        models: null,
      });
      assert.equal(patched.status, 200, patched.text);
      const pb = patched.body as Json;
      assert.equal(pb.name, 'renamed');
      assert.equal(pb.limit_usd, 5);
      assert.deepEqual(pb.thresholds, [0.5, 0.9]);
      assert.equal(pb.action, 'block');
      assert.equal(pb.models, null);
      assert.deepEqual(pb.scope, proj.scope, 'scope unchanged');
      assert.equal(pb.period, 'daily');
      assert.equal(pb.created_at, proj.created_at);
      // Scope and period are fixed.
      for (const body of [{ scope: { type: 'org' } }, { period: 'monthly' }]) {
        const r = await api('PATCH', `/manage/v1/budgets/${proj.id}`, body);
        assert.equal(r.status, 400, JSON.stringify(body));
      }

      const del = await api('DELETE', `/manage/v1/budgets/${proj.id}`);
      assert.equal(del.status, 200);
      assert.ok((del.body as Json).deleted_at);
      assert.equal((del.body as Json).status, null);
      assert.equal((await api('GET', `/manage/v1/budgets/${proj.id}`)).status, 404);
      assert.equal((await api('PATCH', `/manage/v1/budgets/${proj.id}`, { name: 'x' })).status, 404);
      assert.equal((await api('DELETE', `/manage/v1/budgets/${proj.id}`)).status, 404);
      const remaining = (await api('GET', '/manage/v1/budgets')).body as { data: Json[] };
      assert.deepEqual(
        remaining.data.map((b) => b.id),
        [org.id, perUser.id, tag.id],
      );
      // Still in the store, deleted.
      assert.ok((await gw.app.svc.stores.budgets.get(gw.app.svc.bootstrap.orgId, String(proj.id)))?.deletedAt);
    });

    test('invalid bodies are 400s naming the field', async () => {
      const key = (await api('POST', '/manage/v1/api-keys', { name: 'k' })).body as Json;
      const ok = { name: 'b', scope: { type: 'org' }, period: 'daily', limit_usd: 1 };
      const cases: Array<[string, Json, string, string?]> = [
        ['empty name', { ...ok, name: '' }, 'name'],
        ['long name', { ...ok, name: 'x'.repeat(201) }, 'name'],
        ['no scope', { name: 'b', period: 'daily', limit_usd: 1 }, 'scope'],
        ['unknown scope type', { ...ok, scope: { type: 'team' } }, 'scope.type'],
        ['org with id', { ...ok, scope: { type: 'org', id: 'org_x' } }, 'scope.id', 'invalid_budget'],
        ['unknown project', { ...ok, scope: { type: 'project', id: 'proj_nope' } }, 'scope.id', 'invalid_budget'],
        ['project with value', { ...ok, scope: { type: 'project', value: 'a=b' } }, 'scope.value', 'invalid_budget'],
        ['unknown key', { ...ok, scope: { type: 'api_key', id: 'key_nope' } }, 'scope.id', 'invalid_budget'],
        ['tag with id', { ...ok, scope: { type: 'tag', id: 'x' } }, 'scope.id', 'invalid_budget'],
        ['tag without =', { ...ok, scope: { type: 'tag', value: 'team' } }, 'scope.value', 'invalid_budget'],
        ['tag without key', { ...ok, scope: { type: 'tag', value: '=x' } }, 'scope.value', 'invalid_budget'],
        ['long end user', { ...ok, scope: { type: 'end_user', id: 'u'.repeat(201) } }, 'scope.id'],
        ['scope extra field', { ...ok, scope: { type: 'org', name: 'x' } }, 'scope.name'],
        ['bad period', { ...ok, period: 'yearly' }, 'period'],
        ['zero limit', { ...ok, limit_usd: 0 }, 'limit_usd'],
        ['negative limit', { ...ok, limit_usd: -1 }, 'limit_usd'],
        ['string limit', { ...ok, limit_usd: '5' }, 'limit_usd'],
        ['no thresholds', { ...ok, thresholds: [] }, 'thresholds'],
        ['zero threshold', { ...ok, thresholds: [0] }, 'thresholds[0]'],
        ['threshold over 1', { ...ok, thresholds: [0.5, 1.5] }, 'thresholds[1]'],
        ['11 thresholds', { ...ok, thresholds: Array.from({ length: 11 }, (_, i) => (i + 1) / 11) }, 'thresholds'],
        ['bad action', { ...ok, action: 'warn' }, 'action'],
        ['empty models', { ...ok, models: [] }, 'models', 'invalid_budget'],
        ['model with space', { ...ok, models: ['gpt-4o', 'gpt 4'] }, 'models[1]', 'invalid_budget'],
        ['21 models', { ...ok, models: Array.from({ length: 21 }, (_, i) => `m${i}`) }, 'models'],
        ['unknown field', { ...ok, currency: 'eur' }, 'currency'],
      ];
      for (const [what, body, param, code] of cases) {
        const r = await api('POST', '/manage/v1/budgets', body);
        assert.equal(r.status, 400, `${what}: ${r.text}`);
        const e = (r.body as ErrorBody).error;
        assert.equal(e.param, param, `${what}: ${e.message}`);
        if (code) assert.equal(e.code, code, what);
        assert.ok(e.message.length > 0);
      }
      // A selector that names something of the org is accepted.
      await create({ ...ok, scope: { type: 'api_key', id: key.id } });
      await create({ ...ok, scope: { type: 'end_user', id: 'alice' } });

      const org = await create(ok);
      const member = await api('GET', `/manage/v1/budgets/${org.id}?member=alice`);
      assert.equal(member.status, 400);
      assert.equal((member.body as ErrorBody).error.code, 'invalid_budget');
      for (const body of [{ limit_usd: 0 }, { thresholds: [2] }, { models: [] }, { name: '' }]) {
        const r = await api('PATCH', `/manage/v1/budgets/${org.id}`, body);
        assert.equal(r.status, 400, JSON.stringify(body));
      }
      assert.equal((await api('GET', '/manage/v1/budgets/budget_01hzzzzzzzzzzzzzzzzzzzzzzz')).status, 404);
      assert.equal((await api('GET', '/manage/v1/budgets?cursor=junk')).status, 400);
    });

    test('API key rate limits: create, patch, clear, and the principal sees them', async () => {
      const created = await api('POST', '/manage/v1/api-keys', { name: 'limited', rate_limits: { rpm: 60 } });
      assert.equal(created.status, 201, created.text);
      const k = created.body as Json;
      assert.deepEqual(k.rate_limits, { rpm: 60 });
      const principal = async () => await gw.app.svc.principals.authenticate(String(k.key));
      assert.deepEqual((await principal())?.rateLimits, { rpm: 60 });

      const patched = await api('PATCH', `/manage/v1/api-keys/${k.id}`, { rate_limits: { tpm: 1000, concurrency: 2 } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual((patched.body as Json).rate_limits, { tpm: 1000, concurrency: 2 });
      assert.equal('key' in (patched.body as Json), false, 'the plaintext is never returned again');
      assert.deepEqual((await principal())?.rateLimits, { tpm: 1000, concurrency: 2 });

      const renamed = (await api('PATCH', `/manage/v1/api-keys/${k.id}`, { name: 'renamed' })).body as Json;
      assert.equal(renamed.name, 'renamed');
      assert.deepEqual(renamed.rate_limits, { tpm: 1000, concurrency: 2 }, 'a rename keeps the limits');
      const listed = (await api('GET', '/manage/v1/api-keys')).body as { data: Json[] };
      assert.deepEqual(listed.data.find((x) => x.id === k.id)?.rate_limits, { tpm: 1000, concurrency: 2 });

      const cleared = (await api('PATCH', `/manage/v1/api-keys/${k.id}`, { rate_limits: null })).body as Json;
      assert.equal(cleared.rate_limits, null);
      assert.equal((await principal())?.rateLimits, null);
      assert.equal(
        ((await api('PATCH', `/manage/v1/api-keys/${k.id}`, { rate_limits: {} })).body as Json).rate_limits,
        null,
      );

      for (const bad of [{ rpm: 0 }, { rpm: 1.5 }, { tpm: 10_000_001 }, { rph: 5 }, { rpm: '5' }]) {
        const r = await api('PATCH', `/manage/v1/api-keys/${k.id}`, { rate_limits: bad });
        assert.equal(r.status, 400, JSON.stringify(bad));
        assert.match(String((r.body as ErrorBody).error.param), /^rate_limits\./);
      }
      assert.equal((await api('POST', '/manage/v1/api-keys', { rate_limits: { concurrency: 0 } })).status, 400);
      assert.equal((await api('PATCH', `/manage/v1/api-keys/${k.id}`, { project_id: null })).status, 400);
      assert.equal((await api('PATCH', '/manage/v1/api-keys/key_nope', { name: 'x' })).status, 404);
      await api('DELETE', `/manage/v1/api-keys/${k.id}`);
      assert.equal((await api('PATCH', `/manage/v1/api-keys/${k.id}`, { name: 'x' })).status, 404, 'revoked');
    });

    test('project rate limits in settings: set, merge, remove with null', async () => {
      const created = await api('POST', '/manage/v1/projects', {
        name: 'limited project',
        settings: { rate_limits: { rpm: 100 }, end_user_rate_limits: null },
      });
      assert.equal(created.status, 201, created.text);
      const p = created.body as { id: string; settings: Json };
      const { semantic_cache: cache, list_models: _lists, ...limits } = p.settings;
      assert.deepEqual(limits, { log_bodies: true, rate_limits: { rpm: 100 }, end_user_rate_limits: null });
      assert.equal((cache as Json).enabled, false, 'every project shows its cache settings, off by default');

      const merged = await api('PATCH', `/manage/v1/projects/${p.id}`, {
        settings: { end_user_rate_limits: { rpm: 5, tpm: 2000 }, log_bodies: false },
      });
      assert.equal(merged.status, 200, merged.text);
      assert.deepEqual(limitSettings(merged.body), {
        log_bodies: false,
        rate_limits: { rpm: 100 },
        end_user_rate_limits: { rpm: 5, tpm: 2000 },
      });
      assert.deepEqual(gw.app.svc.projects.cached(p.id)?.settings.end_user_rate_limits, { rpm: 5, tpm: 2000 });

      const removed = await api('PATCH', `/manage/v1/projects/${p.id}`, { settings: { rate_limits: null } });
      assert.deepEqual(limitSettings(removed.body), {
        log_bodies: false,
        rate_limits: null,
        end_user_rate_limits: { rpm: 5, tpm: 2000 },
      });
      const stored = await gw.app.svc.stores.projects.get(gw.app.svc.bootstrap.orgId, p.id);
      assert.equal(stored !== undefined && 'rate_limits' in stored.settings, false, 'null removes the setting');
      assert.equal(gw.app.svc.projects.cached(p.id)?.settings.rate_limits, undefined);

      for (const bad of [{ rate_limits: { rpm: -1 } }, { end_user_rate_limits: { burst: 3 } }, { rate_limits: 5 }]) {
        const r = await api('PATCH', `/manage/v1/projects/${p.id}`, { settings: bad });
        assert.equal(r.status, 400, JSON.stringify(bad));
      }
    });
  });

  describe(`budget store and mirror on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => {
      await t?.dispose();
    });

    const budget = (orgId: string, over: Partial<NewBudget> = {}): NewBudget => ({
      id: newId('budget'),
      orgId,
      name: 'b',
      scope: { type: 'end_user' },
      period: 'daily',
      limitUsd: 1.25,
      thresholds: [0.5, 1],
      action: 'block',
      models: ['gpt-*'],
      ...over,
    });

    test('markAlert records a mark once and writes its event only then', async () => {
      const stores = createStores(t.handle.db);
      const b = await stores.budgets.create(budget('org_alerts'));
      const event = (mark: string): DomainEvent => ({
        orgId: 'org_alerts',
        type: 'budget.threshold_reached',
        data: { budget_id: b.id, member: 'alice', threshold: mark },
      });
      const start = '2026-01-01T00:00:00.000Z';
      assert.equal(await stores.budgets.markAlert(b.id, 'alice', start, '0.5', event('0.5')), true);
      assert.equal(await stores.budgets.markAlert(b.id, 'alice', start, '0.5', event('0.5')), false);
      const db = t.handle.db.withTables<WebhookTables>();
      const count = async () =>
        (await db.selectFrom('domain_events').select('body').where('org_id', '=', 'org_alerts').execute()).length;
      assert.equal(await count(), 1, 'exactly one event for one mark');
      // Another mark, member or period is another announcement.
      assert.equal(await stores.budgets.markAlert(b.id, 'alice', start, 'exceeded', event('exceeded')), true);
      assert.equal(await stores.budgets.markAlert(b.id, 'bob', start, '0.5', event('0.5')), true);
      assert.equal(
        await stores.budgets.markAlert(b.id, 'alice', '2026-01-02T00:00:00.000Z', '0.5', event('0.5')),
        true,
      );
      assert.equal(await stores.budgets.markAlert(b.id, 'bob', start, '0.5', event('0.5')), false);
      assert.equal(await count(), 4);
    });

    test('store round trip; the mirror keeps one stable array per org', async () => {
      const bus = new LocalChangeBus();
      const stores = createStores(t.handle.db, bus);
      const mirror = new BudgetMirror(stores.budgets, bus, createLogger('silent'), 3_600_000);
      try {
        const first = await stores.budgets.create(
          budget('org_m', { scope: { type: 'tag', value: 'a=b' }, models: null }),
        );
        await mirror.start();
        const got = await stores.budgets.get('org_m', first.id);
        assert.deepEqual(got, first);
        assert.equal(got?.limitUsd, 1.25);
        assert.deepEqual(got?.scope, { type: 'tag', value: 'a=b' });
        assert.equal(got?.models, null);

        const list = mirror.forOrg('org_m');
        assert.equal(list.length, 1);
        assert.equal(mirror.forOrg('org_m'), list, 'the same array while nothing changes');
        assert.equal(mirror.forOrg('org_none'), mirror.forOrg('org_other'), 'one shared empty array');
        assert.ok(Object.isFrozen(mirror.forOrg('org_none')));

        const second = await stores.budgets.create(budget('org_m'));
        const two = mirror.forOrg('org_m');
        assert.notEqual(two, list);
        assert.deepEqual(
          two.map((b) => b.id),
          [first.id, second.id],
        );
        const updated = await stores.budgets.update('org_m', second.id, { limitUsd: 3, thresholds: [1], models: null });
        assert.equal(updated?.limitUsd, 3);
        assert.equal(mirror.get(second.id)?.limitUsd, 3);
        assert.equal(await stores.budgets.update('org_m', 'budget_nope', { name: 'x' }), undefined);

        const deleted = await stores.budgets.softDelete('org_m', first.id);
        assert.ok(deleted?.deletedAt);
        assert.equal(await stores.budgets.softDelete('org_m', first.id), undefined, 'deleting twice');
        assert.equal(mirror.get(first.id), undefined);
        assert.deepEqual(
          mirror.forOrg('org_m').map((b) => b.id),
          [second.id],
        );
        assert.deepEqual(
          (await stores.budgets.list('org_m', { limit: 10 })).map((b) => b.id),
          [second.id],
        );
        assert.ok((await stores.budgets.changedSince('')).some((b) => b.id === first.id && b.deletedAt !== null));
        assert.equal(
          (await stores.budgets.listAllLive()).some((b) => b.id === first.id),
          false,
        );
        await stores.budgets.softDelete('org_m', second.id);
        assert.equal(mirror.forOrg('org_m'), mirror.forOrg('org_none'), 'back to the shared empty array');
      } finally {
        mirror.stop();
        await bus.close();
      }
    });
  });
}

/** A project's settings without the cache's (shown on every project, tested in test/cache). */
function limitSettings(project: unknown): Json {
  const { semantic_cache: _cache, list_models: _lists, ...rest } = (project as { settings: Json }).settings;
  return rest;
}
