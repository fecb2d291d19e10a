// Configuration as code beyond the core resources: guardrails and the `models` section round-trip,
// a reference to nothing stops the plan before any write, `prune: true` deletes only what it may,
// and the CLI's plan exit codes and apply work on a running gateway's store.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, stringify } from 'yaml';
import {
  applyPlan,
  ConfigFileError,
  exportState,
  makePlan,
  planSize,
  readConfigFile,
  renderPlan,
} from '../../src/config-file/index.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { spawnGateway } from '../helpers/gateway-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'sy-cac-more-'));
const write = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};

let gw: Gateway;
before(async () => {
  gw = await startGateway();
});
after(async () => {
  await gw.close();
});
const orgId = async () => (await gw.app.svc.stores.orgKeys.firstOrg())?.id ?? '';

const BASE = `
projects:
  - slug: guarded
routing_configs:
  - slug: smart
    strategy: single
    config: { model: anthropic/claude-sonnet-4-5 }
guardrails:
  - name: no-zeus
    scope: { type: project, name: guarded }
    checks:
      - { type: regex, stage: input, action: block, patterns: ['\\\\bzeus\\\\b'], flags: i }
models:
  aliases: { fast: "@smart", cheap: openai/gpt-4o-mini }
  prices:
    openai/gpt-4o-mini: { input: 0.1, output: 0.4 }
`;

test('guardrails and model aliases and prices apply once, then plan to nothing, and export round-trips', async () => {
  const svc = gw.app.svc;
  const org = await orgId();
  const file = write('guarded.yaml', BASE);
  const plan = await makePlan(svc, org, readConfigFile(file));
  const text = renderPlan(plan);
  assert.match(text, /\+ guardrail no-zeus \(create\)/);
  assert.match(text, /\+ model_alias fast \(create\)/);
  assert.match(text, /\+ model_price openai\/gpt-4o-mini \(create\)/);
  await applyPlan(plan);
  const guardrail = (await svc.stores.guardrails.list(org, { limit: 10 })).find((g) => g.name === 'no-zeus');
  assert.deepEqual(guardrail?.scope, { type: 'project', id: plan.ctx.ids.get('project')?.get('guarded') });
  const settings = await svc.stores.modelSettings.list(org);
  assert.deepEqual(settings.map((s) => [s.kind, s.name, s.value]).sort(), [
    ['alias', 'cheap', 'openai/gpt-4o-mini'],
    ['alias', 'fast', '@smart'],
    ['price', 'openai/gpt-4o-mini', { input: 0.1, output: 0.4 }],
  ]);
  const again = await makePlan(svc, org, readConfigFile(file));
  assert.equal(planSize(again), 0, renderPlan(again));
  const { config, env } = await exportState(svc, org);
  Object.assign(process.env, env);
  const exported = await makePlan(svc, org, readConfigFile(write('exported.yaml', stringify(config))));
  assert.equal(planSize(exported), 0, renderPlan(exported));
});

test('a reference to nothing or a refused entry stops the plan with its line, before any write', async () => {
  const svc = gw.app.svc;
  const org = await orgId();
  const before = (await svc.stores.routingConfigs.list(org, { limit: 200 })).length;
  const unknownProject = write(
    'ref.yaml',
    'routing_configs:\n  - slug: fresh\n    strategy: single\n    config: { model: openai/gpt-4o }\n  - slug: orphan\n    project: nowhere\n    strategy: single\n    config: { model: openai/gpt-4o }\n',
  );
  await assert.rejects(
    makePlan(svc, org, readConfigFile(unknownProject)),
    (err: unknown) =>
      err instanceof ConfigFileError &&
      err.message ===
        `${unknownProject}:6: routing_configs[1].project: no project with slug 'nowhere' in the store or the file`,
  );
  const badStrategy = write(
    'strategy.yaml',
    'routing_configs:\n  - slug: odd\n    strategy: teleport\n    config: {}\n',
  );
  await assert.rejects(makePlan(svc, org, readConfigFile(badStrategy)), (err: unknown) => {
    return err instanceof ConfigFileError && err.line === 3 && err.field === 'routing_configs[0].strategy';
  });
  const badAlias = write('alias.yaml', 'models:\n  aliases:\n    fast: "@smart"\n    broken: nowhere/model-x\n');
  await assert.rejects(makePlan(svc, org, readConfigFile(badAlias)), (err: unknown) => {
    return err instanceof ConfigFileError && err.line === 4 && err.field === 'models.aliases.broken';
  });
  const twice = write('twice.yaml', 'projects:\n  - slug: same\n  - slug: same\n');
  await assert.rejects(makePlan(svc, org, readConfigFile(twice)), (err: unknown) => {
    return err instanceof ConfigFileError && err.message === `${twice}:3: projects[1].slug: 'same' is declared twice`;
  });
  assert.equal((await svc.stores.routingConfigs.list(org, { limit: 200 })).length, before);
});

test('prune deletes absent resources of the listed kinds, never API keys the file did not make', async () => {
  const svc = gw.app.svc;
  const org = await orgId();
  const base = parse(BASE) as Record<string, unknown> & {
    routing_configs: unknown[];
    models: { prices: Record<string, unknown> };
  };
  const wider = structuredClone(base);
  wider.routing_configs.push({ slug: 'extra', strategy: 'single', config: { model: 'openai/gpt-4o' } });
  wider.models.prices['openai/gpt-4o'] = { input: 2, output: 8 };
  await applyPlan(await makePlan(svc, org, readConfigFile(write('wider.yaml', stringify(wider)))));
  const pruning = { prune: true, api_keys: [], ...base };
  const plan = await makePlan(svc, org, readConfigFile(write('prune.yaml', stringify(pruning))));
  assert.deepEqual(
    plan.changes.map((c) => `${c.action}:${c.kind.type}:${c.key}`),
    // Deletes run after every create and update, dependants first. The bootstrap project is one
    // the file does not list, so it goes too; the admin key is not the file's, so it stays.
    ['delete:routing_config:extra', 'delete:project:default'],
  );
  assert.deepEqual(
    plan.models.map((m) => `${m.action}:${m.name}`),
    ['delete:openai/gpt-4o'],
  );
  await applyPlan(plan);
  assert.equal(planSize(await makePlan(svc, org, readConfigFile(join(dir, 'prune.yaml')))), 0);
  assert.ok(await svc.principals.authenticate(gw.adminKey), 'the admin key survives prune');
});

test('config plan exits 2 then 0, and apply reaches a running gateway on the same store', async () => {
  const proc = await spawnGateway();
  try {
    const file = write(
      'cli.yaml',
      'routing_configs:\n  - slug: via-cli\n    strategy: single\n    config: { model: openai/gpt-4o }\n',
    );
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/switchyard.js', 'config', ...args], {
        env: { ...process.env, SWITCHYARD_DATA_DIR: proc.dataDir, SWITCHYARD_LOG_LEVEL: 'error' },
        encoding: 'utf8',
      });
    const first = cli('plan', file);
    assert.equal(first.status, 2, first.stderr);
    assert.match(first.stdout, /\+ routing_config via-cli \(create\)/);
    const applied = cli('apply', file);
    assert.equal(applied.status, 0, applied.stderr);
    const second = cli('plan', file);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /No changes/);
    const invalid = cli('validate', write('invalid.yaml', 'routing_configs:\n  - slug: x\n'));
    assert.equal(invalid.status, 1);
    assert.match(invalid.stderr, /invalid\.yaml:2: routing_configs\[0\]: missing required field 'strategy'/);
    // The running gateway follows the store: the config answers by slug within its refresh.
    for (let i = 0; ; i++) {
      const res = await fetch(`${proc.url}/manage/v1/routing-configs`, {
        headers: { authorization: `Bearer ${proc.key}` },
      });
      const body = (await res.json()) as { data: { slug: string }[] };
      if (body.data.some((c) => c.slug === 'via-cli')) break;
      assert.ok(i < 100, 'the gateway never listed the config');
      await new Promise((r) => setTimeout(r, 50));
    }
    const patched = await fetch(`${proc.url}/manage/v1/routing-configs`, {
      headers: { authorization: `Bearer ${proc.key}` },
    });
    const id = ((await patched.json()) as { data: { id: string; slug: string }[] }).data.find(
      (c) => c.slug === 'via-cli',
    )?.id;
    const refused = await fetch(`${proc.url}/manage/v1/routing-configs/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${proc.key}` },
    });
    assert.equal(refused.status, 409);
  } finally {
    await proc.stop();
  }
});

test("a key's allowed_tools applies from the file, plans to nothing again, and a change is one update", async () => {
  const svc = gw.app.svc;
  const org = await orgId();
  const text = (tools: string) => `
api_keys:
  - name: agent-tools
    sha256: ${'ab'.repeat(32)}
    allowed_tools: [${tools}]
`;
  await applyPlan(await makePlan(svc, org, readConfigFile(write('tools.yaml', text("'memory__*'")))));
  const find = async () =>
    (await svc.stores.orgKeys.listKeys(org, { limit: 200 })).find((k) => k.name === 'agent-tools');
  assert.deepEqual((await find())?.allowedTools, ['memory__*']);
  assert.equal(planSize(await makePlan(svc, org, readConfigFile(join(dir, 'tools.yaml')))), 0);
  const changed = await makePlan(
    svc,
    org,
    readConfigFile(write('tools2.yaml', text("'memory__*', 'everything__echo'"))),
  );
  assert.deepEqual(
    changed.changes.map((c) => `${c.action}:${c.kind.type}:${c.key}`),
    ['update:api_key:agent-tools'],
  );
  await applyPlan(changed);
  assert.deepEqual((await find())?.allowedTools, ['memory__*', 'everything__echo']);
});
