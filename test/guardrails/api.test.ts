// Guardrail policies over REST and MCP on every dialect: create (with its signing secret, once), get,
// list, update, soft delete; 400s that name the field; the live mirror the proxy reads following
// every write; audit entries without the secret; a webhook check taken from the mirror calling a
// loopback hook signed with the policy's secret; `guardrail.blocked` delivered to a subscribed
// endpoint; the verdict counter on /metrics.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { GuardrailPolicy, WebhookCheck } from '../../src/guardrails/policy.ts';
import { dialects } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, verifyDelivery, waitFor } from '../webhooks/receiver.ts';

type Json = Record<string, unknown>;
interface ErrorBody {
  error: { code: string; param: string | null; message: string; type: string };
}

const PII = { type: 'pii', stage: 'both', action: 'mask', entities: ['email', 'credit_card'], restore: true };
const REGEX = { type: 'regex', stage: 'input', action: 'block', patterns: ['\\bproject\\s+zeus\\b'], flags: 'i' };

for (const d of await dialects()) {
  describe(`guardrails API on ${d.name}`, { skip: d.skip }, () => {
    let gw: Gateway;
    let hook: Receiver;
    const api = (method: string, path: string, body?: unknown) => call(gw, method, path, body);
    const orgId = () => gw.app.svc.bootstrap.orgId;
    const live = () => gw.app.svc.guardrails.policies.forOrg(orgId()).map((p) => p.compiled);
    const refused = async (
      body: unknown,
      param: string,
      message: RegExp,
      method = 'POST',
      path = '/manage/v1/guardrails',
    ) => {
      const r = await api(method, path, body);
      assert.equal(r.status, 400, r.text);
      const e = (r.body as ErrorBody).error;
      assert.equal(e.param, param, e.message);
      assert.match(e.message, message);
      assert.equal(e.type, 'invalid_request_error');
    };

    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres' });
      hook = await startReceiver(() => ({ status: 200, body: JSON.stringify({ action: 'block', reason: 'nope' }) }));
    });
    after(async () => {
      await gw?.close();
      await hook?.close();
    });

    test('create, get, list, update, delete; the mirror follows every write in apply order', async () => {
      const project = (await api('POST', '/manage/v1/projects', { name: 'guarded' })).body as Json;
      const created = await api('POST', '/manage/v1/guardrails', {
        name: 'project pii',
        scope: { type: 'project', id: project.id },
        checks: [PII, REGEX],
      });
      assert.equal(created.status, 201, created.text);
      const p = created.body as Json;
      assert.match(String(p.id), /^guardrail_[0-9a-z]{26}$/);
      assert.equal(p.object, 'guardrail');
      assert.equal(p.mode, 'enforce', 'enforce unless told otherwise');
      assert.deepEqual(p.scope, { type: 'project', id: project.id });
      assert.deepEqual(p.checks, [PII, REGEX]);
      assert.match(String(p.signing_secret), /^whsec_/);
      assert.equal(p.deleted_at, null);

      const org = (
        await api('POST', '/manage/v1/guardrails', {
          name: 'org',
          scope: { type: 'org' },
          mode: 'shadow',
          checks: [REGEX],
        })
      ).body as Json;
      // Org policies apply first whatever their age.
      assert.deepEqual(
        live().map((x) => x.id),
        [org.id, p.id],
      );
      assert.equal(live()[0]?.mode, 'shadow');
      const matching = gw.app.svc.guardrails.policies.matching(orgId(), {
        projectId: String(project.id),
        apiKeyId: null,
        routingConfigId: null,
      });
      assert.equal(matching.length, 2);
      const other = gw.app.svc.guardrails.policies.matching(orgId(), {
        projectId: 'proj_x',
        apiKeyId: null,
        routingConfigId: null,
      });
      assert.deepEqual(
        other.map((x) => x.id),
        [org.id],
      );

      const got = await api('GET', `/manage/v1/guardrails/${p.id}`);
      assert.equal(got.status, 200);
      assert.equal('signing_secret' in (got.body as Json), false, 'the secret is shown by create only');
      assert.deepEqual((got.body as Json).checks, [PII, REGEX]);

      const page1 = (await api('GET', '/manage/v1/guardrails?limit=1')).body as {
        data: Json[];
        has_more: boolean;
        next_cursor: string;
      };
      assert.equal(page1.has_more, true);
      const page2 = (await api('GET', `/manage/v1/guardrails?limit=1&cursor=${page1.next_cursor}`)).body as {
        data: Json[];
      };
      assert.deepEqual(
        [...page1.data, ...page2.data].map((x) => x.id),
        [p.id, org.id],
      );

      const patched = await api('PATCH', `/manage/v1/guardrails/${p.id}`, { mode: 'shadow', checks: [REGEX] });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((patched.body as Json).mode, 'shadow');
      assert.equal((patched.body as Json).name, 'project pii', 'fields not sent are kept');
      assert.deepEqual((patched.body as Json).checks, [REGEX]);
      const mirrored = live().find((x) => x.id === p.id);
      assert.equal(mirrored?.mode, 'shadow');
      assert.deepEqual(mirrored?.checks, [REGEX]);

      const deleted = await api('DELETE', `/manage/v1/guardrails/${p.id}`);
      assert.equal(deleted.status, 200);
      assert.notEqual((deleted.body as Json).deleted_at, null);
      assert.deepEqual(
        live().map((x) => x.id),
        [org.id],
      );
      assert.notEqual(((await api('GET', `/manage/v1/guardrails/${p.id}`)).body as Json).deleted_at, null);
      assert.equal((await api('DELETE', `/manage/v1/guardrails/${p.id}`)).status, 404);
      assert.equal((await api('PATCH', `/manage/v1/guardrails/${p.id}`, { name: 'x' })).status, 404);
      const listed = ((await api('GET', '/manage/v1/guardrails')).body as { data: Json[] }).data;
      assert.deepEqual(
        listed.map((x) => x.id),
        [org.id],
      );
      await api('DELETE', `/manage/v1/guardrails/${org.id}`);
    });

    test('bad policies are 400s that name the field, on create and on update', async () => {
      const base = { name: 'bad', scope: { type: 'org' } };
      await refused({ ...base, checks: [] }, 'checks', /checks/);
      await refused(
        { ...base, checks: [{ ...REGEX, patterns: ['(unclosed'] }] },
        'checks[0].patterns[0]',
        /not a valid regular expression/,
      );
      await refused(
        { ...base, checks: [{ ...PII, words: ['x'] }] },
        'checks[0].words',
        /Unknown field 'checks\[0\]\.words' for a pii check/,
      );
      await refused({ ...base, checks: [{ ...PII, entities: ['passport'] }] }, 'checks[0].entities[0]', /email/);
      await refused(
        { ...base, checks: [{ type: 'max_messages', stage: 'output', action: 'block', limit: 3 }] },
        'checks[0].stage',
        /input/,
      );
      await refused({ ...base, checks: [{ ...REGEX, stage: 'output' }] }, 'checks[0].max_match', /required/);
      await refused({ ...base, checks: [{ type: 'nope', stage: 'input', action: 'block' }] }, 'checks[0].type', /pii/);
      await refused({ name: 'bad', scope: { type: 'project' }, checks: [REGEX] }, 'scope.id', /required/);
      await refused(
        { name: 'bad', scope: { type: 'project', id: 'proj_missing' }, checks: [REGEX] },
        'scope.id',
        /no active project/,
      );
      await refused(
        { name: 'bad', scope: { type: 'api_key', id: 'key_missing' }, checks: [REGEX] },
        'scope.id',
        /no API key/,
      );
      await refused(
        { name: 'bad', scope: { type: 'routing_config', id: 'rc_missing' }, checks: [REGEX] },
        'scope.id',
        /no routing config/,
      );
      await refused(
        { name: 'bad', scope: { type: 'org', id: 'org_other' }, checks: [REGEX] },
        'scope.id',
        /leave 'scope.id' out/,
      );
      // The address policy of webhook endpoints: metadata and link-local are refused always.
      const hookCheck = {
        type: 'webhook',
        stage: 'input',
        action: 'block',
        url: 'http://169.254.169.254/latest/meta-data',
      };
      await refused({ ...base, checks: [hookCheck] }, 'checks[0].url', /refused: .*link-local/);
      await refused({ ...base, checks: [{ ...hookCheck, url: 'ftp://example.com/' }] }, 'checks[0].url', /http\(s\)/);
      await refused(
        { ...base, checks: [{ ...hookCheck, url: hook.url, timeout_ms: 0 }] },
        'checks[0].timeout_ms',
        /1 to/,
      );

      const ok = (await api('POST', '/manage/v1/guardrails', { ...base, checks: [REGEX] })).body as Json;
      const path = `/manage/v1/guardrails/${ok.id}`;
      await refused({ checks: [{ ...REGEX, flags: 'gx' }] }, 'checks[0].flags', /i, m, s, u/, 'PATCH', path);
      await refused({ checks: [{ ...hookCheck }] }, 'checks[0].url', /link-local/, 'PATCH', path);
      await refused({ mode: 'loud' }, 'mode', /enforce|shadow/, 'PATCH', path);
      assert.deepEqual(((await api('GET', path)).body as Json).checks, [REGEX], 'a refused update changes nothing');
      await api('DELETE', path);
    });

    test('a webhook check from the mirror calls the hook signed with the policy secret; writes are audited without it', async () => {
      const created = await api('POST', '/manage/v1/guardrails', {
        name: 'hooked',
        scope: { type: 'org' },
        checks: [
          { type: 'webhook', stage: 'input', action: 'block', url: hook.url, timeout_ms: 2000, on_error: 'block' },
        ],
      });
      assert.equal(created.status, 201, created.text);
      const { id, signing_secret: secret } = created.body as { id: string; signing_secret: string };
      const policy = live().find((x) => x.id === id) as GuardrailPolicy;
      const check = policy.checks[0] as WebhookCheck;
      const payload = { stage: 'input' as const, request_id: 'req_1', project_id: 'proj_1', model: 'm', text: 'hello' };
      assert.deepEqual(await gw.app.svc.guardrails.webhooks.call(payload, check), { action: 'block', reason: 'nope' });
      assert.deepEqual(verifyDelivery(secret, hook.received.at(-1)!), payload);

      await api('PATCH', `/manage/v1/guardrails/${id}`, { name: 'hooked again' });
      await api('DELETE', `/manage/v1/guardrails/${id}`);
      const entries = (
        (await api('GET', `/manage/v1/audit-logs?resource_type=guardrail&resource_id=${id}`)).body as {
          data: Array<{ action: string }>;
        }
      ).data;
      assert.deepEqual(entries.map((e) => e.action).sort(), [
        'guardrail.create',
        'guardrail.delete',
        'guardrail.update',
      ]);
      const exported = await api('GET', '/manage/v1/audit-logs/export');
      assert.equal(exported.text.includes(secret), false, 'the signing secret is never in the audit log');
    });

    test('MCP tools follow the operation list', async () => {
      const client = new Client({ name: 'guardrails-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
        }),
      );
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        for (const n of [
          'list_guardrails',
          'get_guardrail',
          'create_guardrail',
          'update_guardrail',
          'delete_guardrail',
        ])
          assert.ok(names.includes(n), n);
        const res = await client.callTool({
          name: 'create_guardrail',
          arguments: { name: 'by mcp', scope: { type: 'org' }, checks: [REGEX] },
        });
        assert.notEqual(res.isError, true, JSON.stringify(res));
        const bad = await client.callTool({
          name: 'create_guardrail',
          arguments: { name: 'by mcp', scope: { type: 'org' }, checks: [{ ...REGEX, patterns: ['('] }] },
        });
        assert.equal(bad.isError, true);
        assert.match(JSON.stringify(bad.content), /checks\[0\]\.patterns\[0\]/);
      } finally {
        await client.close();
      }
      const listed = ((await api('GET', '/manage/v1/guardrails')).body as { data: Json[] }).data;
      const mine = listed.find((x) => x.name === 'by mcp');
      assert.ok(mine);
      await api('DELETE', `/manage/v1/guardrails/${mine.id}`);
    });

    test('guardrail.blocked reaches a subscribed endpoint; verdicts are counted on /metrics', async () => {
      const types = ((await api('GET', '/manage/v1/webhooks/event-types')).body as { data: Array<{ type: string }> })
        .data;
      assert.ok(types.some((t) => t.type === 'guardrail.blocked'));
      const receiver = await startReceiver();
      try {
        const ep = await api('POST', '/manage/v1/webhooks/endpoints', {
          url: receiver.url,
          event_types: ['guardrail.blocked'],
        });
        assert.equal(ep.status, 201, ep.text);
        const block = {
          orgId: orgId(),
          requestId: 'req_blocked',
          projectId: null,
          apiKeyId: null,
          model: 'openai/gpt-4o-mini',
          policyId: 'guardrail_x',
          policyName: 'no cards',
          check: 'pii',
          checkIndex: 0,
          stage: 'input' as const,
          entities: { credit_card: 1 },
        };
        gw.app.svc.guardrails.events.blocked(block);
        const got = await waitFor('the guardrail.blocked delivery', () => receiver.received[0]);
        const event = verifyDelivery((ep.body as { signing_secret: string }).signing_secret, got);
        assert.equal(event.type, 'guardrail.blocked');
        assert.deepEqual(event.data, {
          request_id: 'req_blocked',
          project_id: null,
          api_key_id: null,
          model: 'openai/gpt-4o-mini',
          policy_id: 'guardrail_x',
          policy_name: 'no cards',
          check: 'pii',
          check_index: 0,
          stage: 'input',
          entities: { credit_card: 1 },
        });
        await api('DELETE', `/manage/v1/webhooks/endpoints/${(ep.body as Json).id}`);
      } finally {
        await receiver.close();
      }

      const count = gw.app.svc.guardrails.countVerdict;
      count('guardrail_a', 'pii', 'mask');
      count('guardrail_a', 'pii', 'mask');
      count('guardrail_a', 'regex', 'block');
      const metrics = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.adminKey}` } });
      const text = await metrics.text();
      assert.match(text, /switchyard_guardrail_verdicts_total\{policy="guardrail_a",check="pii",action="mask"\} 2\b/);
      assert.match(
        text,
        /switchyard_guardrail_verdicts_total\{policy="guardrail_a",check="regex",action="block"\} 1\b/,
      );
    });
  });
}
