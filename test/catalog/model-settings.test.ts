// The model settings store and its live mirror on both dialects (migration 196): set, no-op set,
// delete and revive; one event per real change and none for a no-op; the mirror follows each, and
// the plan/apply service the config file uses validates the whole file before writing any of it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LocalChangeBus } from '../../src/cluster/local/change-bus.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { ModelSettingsMirror } from '../../src/live/models.ts';
import { applyModelSettings, readModelSettings } from '../../src/manage/models-settings.ts';
import type { ChangeEvent } from '../../src/ports/change-bus.ts';
import { computeCost } from '../../src/providers/catalog/cost.ts';
import { overrideRates } from '../../src/providers/catalog/price-override.ts';
import { createModelSettingStore, type ModelSettingStore } from '../../src/store/model-settings.ts';
import { createLogger } from '../../src/util/logger.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const logger = createLogger('silent');

for (const d of await dialects()) {
  describe(`model settings on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let store: ModelSettingStore;
    let mirror: ModelSettingsMirror;
    const events: ChangeEvent[] = [];
    const bus = new LocalChangeBus({ onError: (err) => assert.fail(String(err)) });

    before(async () => {
      t = await d.open();
      store = createModelSettingStore(t.handle.db, bus);
      bus.subscribe('model_setting', (ev) => {
        events.push(ev);
      });
      mirror = new ModelSettingsMirror(store, bus, logger, 60_000);
      await mirror.start();
    });
    after(async () => {
      mirror.stop();
      await bus.close();
      await t?.dispose();
    });

    test('set, no-op, delete and revive: one event per change, the mirror follows', async () => {
      const first = await store.set('org_a', 'alias', 'fast', 'openai/gpt-4o-mini');
      assert.equal(first.changed, true);
      assert.equal(mirror.alias('org_a', 'fast'), 'openai/gpt-4o-mini');
      assert.equal(mirror.alias('org_b', 'fast'), undefined, 'per organization');
      const again = await store.set('org_a', 'alias', 'fast', 'openai/gpt-4o-mini');
      assert.equal(again.changed, false);
      assert.equal(events.length, 1, 'a no-op set publishes nothing');
      await store.set('org_a', 'alias', 'fast', '@main');
      assert.equal(mirror.alias('org_a', 'fast'), '@main');
      const gone = await store.remove('org_a', 'alias', 'fast');
      assert.equal(gone?.id, first.record.id);
      assert.equal(mirror.alias('org_a', 'fast'), undefined);
      assert.equal(await store.remove('org_a', 'alias', 'fast'), undefined);
      const revived = await store.set('org_a', 'alias', 'fast', 'anthropic/claude-sonnet-4-5');
      assert.equal(revived.record.id, first.record.id, 'the same row comes back');
      assert.equal(mirror.alias('org_a', 'fast'), 'anthropic/claude-sonnet-4-5');
      assert.equal(events.length, 4);
    });

    test('a price set under the catalog id is found under any spelling', async () => {
      await store.set('org_a', 'price', 'anthropic/claude-sonnet-4-5', { input: 2, output: 10 });
      assert.deepEqual(mirror.price('org_a', 'anthropic', 'claude-sonnet-4-5-20250929'), { input: 2, output: 10 });
      assert.equal(mirror.price('org_a', 'openai', 'gpt-4o'), undefined);
    });

    test('the poll sees what no event announced', async () => {
      const quiet = createModelSettingStore(t.handle.db);
      await quiet.set('org_c', 'alias', 'cheap', 'openai/gpt-4o-mini');
      assert.equal(mirror.alias('org_c', 'cheap'), undefined);
      await mirror.refresh();
      assert.equal(mirror.alias('org_c', 'cheap'), 'openai/gpt-4o-mini');
    });

    test('plan and apply: a bad entry refuses the lot; a second apply changes nothing', async () => {
      const svc = { stores: { modelSettings: store } };
      await assert.rejects(
        applyModelSettings(svc, 'org_d', { aliases: { fast: '@main', 'gpt-4o': 'openai/gpt-4o-mini' } }),
        (e: unknown) => e instanceof GatewayError && e.param === 'aliases.gpt-4o',
      );
      assert.deepEqual(await readModelSettings(svc, 'org_d'), { aliases: {}, prices: {} });
      const desired = {
        aliases: { fast: '@main', smart: 'anthropic/claude-sonnet-4-5' },
        prices: { 'openai/gpt-4o-mini': { input: 0.1, output: 0.4 } },
      };
      const plan = await applyModelSettings(svc, 'org_d', desired, { apply: false });
      assert.deepEqual(
        plan.map((c) => `${c.action} ${c.kind} ${c.name}`),
        ['create alias fast', 'create alias smart', 'create price openai/gpt-4o-mini'],
      );
      assert.deepEqual(await readModelSettings(svc, 'org_d'), { aliases: {}, prices: {} }, 'a plan writes nothing');
      await applyModelSettings(svc, 'org_d', desired);
      const before = events.length;
      assert.deepEqual(await applyModelSettings(svc, 'org_d', desired), []);
      assert.equal(events.length, before, 'the second apply publishes nothing');
      const pruned = await applyModelSettings(svc, 'org_d', { aliases: { fast: '@main' } }, { prune: true });
      assert.deepEqual(
        pruned.map((c) => `${c.action} ${c.kind} ${c.name}`),
        ['delete alias smart', 'delete price openai/gpt-4o-mini'],
      );
    });
  });
}

test('computeCost uses an override instead of list prices, and prices a model the catalog lacks', () => {
  const usage = { input: 1_000_000, output: 500_000, cacheRead: 200_000 };
  const list = computeCost('openai', 'gpt-4o-mini', usage);
  const rates = overrideRates('openai', 'gpt-4o-mini', { input: 1, output: 2 });
  const own = computeCost('openai', 'gpt-4o-mini', usage, { price: rates });
  assert.notEqual(own.costUsd, list.costUsd);
  assert.equal(own.breakdown.input, 1);
  assert.equal(own.breakdown.output, 1);
  assert.equal(own.breakdown.cacheRead, (0.2 * rates.cacheRead) / 1);
  const unknown = computeCost('openai', 'my-finetune-xyz', usage, { price: { ...rates, cacheRead: 1 } });
  assert.equal(unknown.known, true);
  assert.equal(unknown.costUsd, 1 + 1 + 0.2);
});
