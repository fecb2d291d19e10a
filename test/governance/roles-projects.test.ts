// A developer bound to a project manages that project's routing configs and budgets (issue 33 item
// 2), and nothing of another project or of the whole organization; webhook endpoints, which
// receive every event of the organization, stay with org-wide callers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

type Json = Record<string, unknown>;
type ErrorBody = { error?: { code?: string } };
const codeOf = (r: { body: unknown }) => (r.body as ErrorBody).error?.code;
const config = (name: string, extra: Json = {}) => ({
  name,
  strategy: 'single',
  config: { model: 'openai/gpt-4o-mini' },
  ...extra,
});

for (const d of await dialects()) {
  describe(`a project developer's reach (${d.name})`, { skip: d.skip }, () => {
    let gw: Gateway;
    let projectId: string;
    let otherId: string;
    let dev: string;
    const admin = (method: string, path: string, body?: unknown) => call(gw, method, path, body);
    const asDev = (method: string, path: string, body?: unknown) =>
      call({ url: gw.url, adminKey: dev }, method, path, body);

    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres' });
      projectId = ((await admin('POST', '/manage/v1/projects', { name: 'mine' })).body as Json).id as string;
      otherId = ((await admin('POST', '/manage/v1/projects', { name: 'theirs' })).body as Json).id as string;
      const k = await admin('POST', '/manage/v1/api-keys', { name: 'dev', project_id: projectId, role: 'developer' });
      assert.equal(k.status, 201, k.text);
      dev = (k.body as Json).key as string;
    });
    after(async () => gw?.close());

    test('routing configs: its project only', async () => {
      const own = await asDev('POST', '/manage/v1/routing-configs', config('Own bot'));
      assert.equal(own.status, 201, own.text);
      const ownId = (own.body as Json).id as string;
      assert.equal((own.body as Json).project_id, projectId, 'a new config belongs to the caller project');
      const patched = await asDev('PATCH', `/manage/v1/routing-configs/${ownId}`, { name: 'Renamed' });
      assert.equal(patched.status, 200, patched.text);
      const tested = await asDev('POST', `/manage/v1/routing-configs/${ownId}/test`, {
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(tested.status, 200, tested.text);

      for (const extra of [{ project_id: otherId }, { project_id: null }]) {
        const r = await asDev('POST', '/manage/v1/routing-configs', config('Elsewhere', extra));
        assert.equal(r.status, 403, r.text);
        assert.equal(codeOf(r), 'project_out_of_scope');
      }
      const orgWide = await admin('POST', '/manage/v1/routing-configs', config('Org bot'));
      const foreign = await admin('POST', '/manage/v1/routing-configs', config('Their bot', { project_id: otherId }));
      for (const c of [orgWide, foreign]) {
        const id = (c.body as Json).id as string;
        for (const [method, path, body] of [
          ['GET', `/manage/v1/routing-configs/${id}`, undefined],
          ['PATCH', `/manage/v1/routing-configs/${id}`, { name: 'Taken over' }],
          ['POST', `/manage/v1/routing-configs/${id}/versions/1/restore`, undefined],
          ['DELETE', `/manage/v1/routing-configs/${id}`, undefined],
        ] as const) {
          const r = await asDev(method, path, body);
          assert.equal(codeOf(r), 'project_out_of_scope', `${method} ${path}: ${r.text}`);
        }
      }
      const listed = (await asDev('GET', '/manage/v1/routing-configs?limit=100')).body as { data: Json[] };
      assert.deepEqual(
        listed.data.map((c) => c.id),
        [ownId],
      );
      const asked = await asDev('GET', `/manage/v1/routing-configs?project_id=${otherId}`);
      assert.equal(codeOf(asked), 'project_out_of_scope');
      assert.equal((await asDev('DELETE', `/manage/v1/routing-configs/${ownId}`)).status, 200);
    });

    test('budgets: the ones over its project only', async () => {
      const own = await asDev('POST', '/manage/v1/budgets', {
        name: 'ours',
        scope: { type: 'project' },
        period: 'monthly',
        limit_usd: 10,
      });
      assert.equal(own.status, 201, own.text);
      const ownId = (own.body as Json).id as string;
      assert.deepEqual((own.body as Json).scope, { type: 'project', id: projectId });
      const patched = await asDev('PATCH', `/manage/v1/budgets/${ownId}`, { limit_usd: 20 });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((patched.body as Json).limit_usd, 20);

      for (const scope of [{ type: 'org' }, { type: 'project', id: otherId }, { type: 'tag', value: 'team=a' }]) {
        const r = await asDev('POST', '/manage/v1/budgets', { name: 'x', scope, period: 'daily', limit_usd: 1 });
        assert.equal(r.status, 403, `${JSON.stringify(scope)}: ${r.text}`);
        assert.equal(codeOf(r), 'project_out_of_scope');
      }
      const orgBudget = await admin('POST', '/manage/v1/budgets', {
        name: 'org',
        scope: { type: 'org' },
        period: 'monthly',
        limit_usd: 100,
      });
      const orgId = (orgBudget.body as Json).id as string;
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { limit_usd: 1 }],
        ['DELETE', undefined],
      ] as const) {
        const r = await asDev(method, `/manage/v1/budgets/${orgId}`, body);
        assert.equal(codeOf(r), 'project_out_of_scope', `${method}: ${r.text}`);
      }
      assert.equal(((await admin('GET', `/manage/v1/budgets/${orgId}`)).body as Json).limit_usd, 100);
      const listed = (await asDev('GET', '/manage/v1/budgets?limit=100')).body as { data: Json[] };
      assert.deepEqual(
        listed.data.map((b) => b.id),
        [ownId],
      );
      assert.equal((await asDev('DELETE', `/manage/v1/budgets/${ownId}`)).status, 200);
    });

    test('webhook endpoints stay with org-wide callers', async () => {
      const r = await asDev('POST', '/manage/v1/webhooks/endpoints', { url: 'https://hooks.example.com/x' });
      assert.equal(r.status, 403, r.text);
      assert.equal(codeOf(r), 'insufficient_scope');
      assert.equal(codeOf(await asDev('GET', '/manage/v1/webhooks/endpoints')), 'insufficient_scope');
    });
  });
}
