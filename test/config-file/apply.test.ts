// Configuration as code (issue 36 items 1-4): plan on an empty store lists every resource, apply makes
// them, a second plan and apply change nothing, one changed fallback model is one new version and one
// event, export round-trips, and the file's resources refuse API writes with 409 managed_by_config.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { stringify } from 'yaml';
import {
  applyPlan,
  ConfigFileError,
  configJsonSchema,
  exportState,
  makePlan,
  parseConfigText,
  readConfigFile,
  renderPlan,
} from '../../src/config-file/index.ts';
import { dialects } from '../helpers/dialects.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'sy-cac-'));
const SECRET = join(dir, 'anthropic.key');
writeFileSync(SECRET, 'sk-ant-file-secret-0123456789\n');
process.env.CAC_OPENAI_KEY = 'sk-openai-env-secret-0123456789';
process.env.CAC_SUPPORT_KEY = 'sy-support-key-from-env-000000000000000000';

const fileText = (fallbackModel: string) => `
version: 1
providers:
  - name: openai-main
    vendor: openai
    api_key: \${env:CAC_OPENAI_KEY}
  - name: anthropic-main
    vendor: anthropic
    api_key: \${file:${SECRET}}
    weight: 2
projects:
  - slug: support
    name: Support desk
    settings: { log_bodies: true, rate_limits: { rpm: 600 } }
  - slug: research
api_keys:
  - name: support-app
    project: support
    key: \${env:CAC_SUPPORT_KEY}
  - name: research-app
    project: research
    sha256: ${'ab'.repeat(32)}
    rate_limits: { rpm: 60 }
  - name: ops
    role: viewer
    sha256: ${'cd'.repeat(32)}
routing_configs:
  - slug: main
    strategy: fallback
    config:
      models:
        - openai/gpt-4o-mini
        - ${fallbackModel}
  - slug: cheap
    strategy: single
    config: { model: openai/gpt-4o-mini }
  - slug: pinned
    project: support
    strategy: single
    config: { model: { model: anthropic/claude-3-5-haiku-latest, provider_credential: anthropic-main } }
  - slug: research-default
    project: research
    strategy: single
    config: { model: anthropic/claude-3-5-haiku-latest }
budgets:
  - name: org-monthly
    scope: { type: org }
    period: monthly
    limit_usd: 500
  - name: support-daily
    scope: { type: project, project: support }
    period: daily
    limit_usd: 20
    action: alert_only
webhooks:
  - url: https://hooks.example.com/switchyard
    event_types: [routing_config.updated]
`;

for (const d of await dialects()) {
  describe(`configuration as code on ${d.name}`, { skip: d.skip }, () => {
    let gw: Gateway;
    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres' });
    });
    after(async () => {
      await gw.close();
    });

    const write = (name: string, text: string) => {
      const f = join(dir, name);
      writeFileSync(f, text);
      return f;
    };
    const orgId = async () => (await gw.app.svc.stores.orgKeys.firstOrg())?.id ?? '';
    const count = async (table: string, where = sql`1 = 1`) =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(gw.app.svc.db))
          .rows[0]?.n,
      );

    test('plan lists everything on an empty store; apply makes it; the second plan and apply change nothing', async () => {
      const svc = gw.app.svc;
      const org = await orgId();
      const file = write('switchyard.yaml', fileText('anthropic/claude-3-5-haiku-latest'));
      const plan = await makePlan(svc, org, readConfigFile(file));
      const created = plan.changes.filter((c) => c.action === 'create').map((c) => `${c.kind.type}:${c.key}`);
      assert.deepEqual(created.sort(), [
        'api_key:ops',
        'api_key:research-app',
        'api_key:support-app',
        'budget:org-monthly',
        'budget:support-daily',
        'project:research',
        'project:support',
        'provider:anthropic-main',
        'provider:openai-main',
        'routing_config:cheap',
        'routing_config:main',
        'routing_config:pinned',
        'routing_config:research-default',
        'webhook_endpoint:https://hooks.example.com/switchyard',
      ]);
      const text = renderPlan(plan);
      assert.match(text, /\+ routing_config main \(create\)/);
      assert.match(text, /api_key: \(secret\)/);
      assert.doesNotMatch(text, /sk-openai-env-secret/);
      await applyPlan(plan);

      // Made through the operations: the config's credential reference is the provider's id, the
      // project key authenticates, and the audit log names the file as a system actor.
      const pinned = (await svc.stores.routingConfigs.list(org, { limit: 50 })).find((c) => c.slug === 'pinned');
      const anthropicId = plan.ctx.ids.get('provider')?.get('anthropic-main');
      assert.ok(anthropicId);
      assert.deepEqual(pinned?.config, {
        model: { model: 'anthropic/claude-3-5-haiku-latest', provider_credential_id: anthropicId },
      });
      const principal = await svc.principals.authenticate(process.env.CAC_SUPPORT_KEY ?? '');
      assert.equal(principal?.projectId, plan.ctx.ids.get('project')?.get('support'));
      assert.ok((await count('audit_log', sql`actor_type = 'system' and actor_id = 'config'`)) >= 14);

      const versions = await count('routing_config_versions');
      const events = await count('domain_events');
      const again = await makePlan(svc, org, readConfigFile(file));
      assert.equal(again.changes.length, 0, renderPlan(again));
      assert.match(renderPlan(again), /No changes/);
      await applyPlan(again);
      assert.equal(await count('routing_config_versions'), versions);
      assert.equal(await count('domain_events'), events);
    });

    test('one changed fallback model is exactly one new version and one event', async () => {
      const svc = gw.app.svc;
      const org = await orgId();
      const file = write('switchyard.yaml', fileText('anthropic/claude-sonnet-4-5'));
      const versions = await count('routing_config_versions');
      const events = await count('domain_events');
      const plan = await makePlan(svc, org, readConfigFile(file));
      assert.equal(plan.changes.length, 1);
      assert.equal(plan.changes[0]?.key, 'main');
      assert.deepEqual(
        plan.changes[0]?.fields.map((f) => [f.field, f.from, f.to]),
        [['config.models[1]', 'anthropic/claude-3-5-haiku-latest', 'anthropic/claude-sonnet-4-5']],
      );
      await applyPlan(plan);
      assert.equal(await count('routing_config_versions'), versions + 1);
      assert.equal(await count('domain_events'), events + 1);
      const types = await sql<{ type: string }>`select type from domain_events order by id desc limit 1`.execute(
        svc.db,
      );
      assert.equal(types.rows[0]?.type, 'routing_config.updated');
    });

    test('export writes a file that plans to no change', async () => {
      const svc = gw.app.svc;
      const org = await orgId();
      const { config, env } = await exportState(svc, org);
      Object.assign(process.env, env);
      const file = write('exported.yaml', stringify(config));
      const plan = await makePlan(svc, org, readConfigFile(file));
      assert.equal(plan.changes.length, 0, renderPlan(plan));
      assert.ok(Object.keys(env).length >= 2);
      assert.doesNotMatch(readFileSync(file, 'utf8'), /sk-openai-env-secret/);
    });

    test('an API write to a file-managed config answers 409 managed_by_config; others still work', async () => {
      const org = await orgId();
      const [main] = (await gw.app.svc.stores.routingConfigs.list(org, { limit: 50 })).filter((c) => c.slug === 'main');
      assert.ok(main);
      const patch = await fetch(`${gw.url}/manage/v1/routing-configs/${main.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'changed by hand' }),
      });
      assert.equal(patch.status, 409);
      const body = (await patch.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'managed_by_config');
      assert.match(body.error.message, /SWITCHYARD_CONFIG/);
      // A dry-run test acts through the config without changing it: not refused.
      const dry = await fetch(`${gw.url}/manage/v1/routing-configs/${main.id}/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ dry_run: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(dry.status, 200, await dry.text());
      const created = await fetch(`${gw.url}/manage/v1/routing-configs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'by-hand', strategy: 'single', config: { model: 'openai/gpt-4o-mini' } }),
      });
      assert.equal(created.status, 201);
      const id = ((await created.json()) as { id: string }).id;
      const del = await fetch(`${gw.url}/manage/v1/routing-configs/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${gw.adminKey}` },
      });
      assert.equal(del.status, 200);
    });
  });
}

test('errors name the file, the line and the field', () => {
  const schemaError = 'providers:\n  - name: a\n    vendor: openai\n    api_key: x\n    wieght: 2\n';
  assert.throws(
    () => parseConfigText('bad.yaml', schemaError),
    (err: unknown) =>
      err instanceof ConfigFileError && err.message === 'bad.yaml:5: providers[0].wieght: unknown field',
  );
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file syntax, not a template
  const missing = 'providers:\n  - name: a\n    vendor: openai\n    api_key: ${env:CAC_NOT_SET_ANYWHERE}\n';
  assert.throws(
    () => parseConfigText('env.yaml', missing),
    (err: unknown) =>
      err instanceof ConfigFileError &&
      err.message === 'env.yaml:4: providers[0].api_key: environment variable CAC_NOT_SET_ANYWHERE is not set',
  );
});

test('the JSON Schema is served and docs/config.schema.json is the same document', async () => {
  const gw = await startGateway();
  let served: string;
  try {
    const res = await fetch(`${gw.url}/config.schema.json`);
    assert.equal(res.status, 200);
    served = await res.text();
  } finally {
    await gw.close();
  }
  assert.equal(served, configJsonSchema());
  // The committed copy is biome-formatted, so the documents are compared, not their spacing.
  assert.deepEqual(
    JSON.parse(readFileSync('docs/config.schema.json', 'utf8')),
    JSON.parse(served),
    'docs/config.schema.json drifted: regenerate it from src/config-file/schema.ts',
  );
  assert.equal(
    (JSON.parse(served) as { properties: Record<string, unknown> }).properties.routing_configs !== undefined,
    true,
  );
});
