// Roles on API keys (issue 33 item 2), end to end: a viewer reads logs, is refused every write and
// every model call (both official SDKs, both base URLs); keys carry, return and change their role;
// a caller never hands out or touches more than it has; a developer bound to a project manages
// that project's keys only; a role change applies to the key's next call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { OPERATIONS } from '../../src/manage/operations.ts';
import { call } from '../helpers/gateway.ts';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

type Json = Record<string, unknown>;
type ErrorBody = { error?: { code?: string; message?: string; type?: string } };
let env: ProxyEnv;
let projectId: string;
let otherProjectId: string;

const as = (key: string, method: string, path: string, body?: unknown) =>
  call({ url: env.gw.url, adminKey: key }, method, path, body);
const admin = (method: string, path: string, body?: unknown) => as(env.gw.adminKey, method, path, body);
const codeOf = (r: { body: unknown }) => (r.body as ErrorBody).error?.code;

async function createKey(body: Json, by = env.gw.adminKey): Promise<Json & { id: string; key: string; role: string }> {
  const r = await as(by, 'POST', '/manage/v1/api-keys', body);
  assert.equal(r.status, 201, r.text);
  return r.body as Json & { id: string; key: string; role: string };
}

const hi = [{ role: 'user' as const, content: 'hi' }];

before(async () => {
  env = await startProxyEnv();
  projectId = ((await admin('POST', '/manage/v1/projects', { name: 'roles' })).body as Json).id as string;
  otherProjectId = ((await admin('POST', '/manage/v1/projects', { name: 'other' })).body as Json).id as string;
});
after(async () => env?.close());

describe('a viewer key', () => {
  let viewer: string;
  before(async () => {
    viewer = (await createKey({ name: 'auditor', role: 'viewer' })).key;
    // One logged call to read back.
    const openai = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: env.models.openai as string, max_tokens: 5, messages: hi });
    await env.gw.app.svc.logs.flush();
  });

  test('reads logs, analytics and configuration', async () => {
    const logs = await as(viewer, 'GET', '/manage/v1/logs?limit=5');
    assert.equal(logs.status, 200, logs.text);
    const rows = (logs.body as { data: Array<{ id: string }> }).data;
    assert.ok(rows.length >= 1, 'the logged call is listed');
    const one = await as(viewer, 'GET', `/manage/v1/logs/${rows[0]?.id}`);
    assert.equal(one.status, 200, one.text);
    for (const path of [
      '/manage/v1/analytics/report',
      '/manage/v1/providers',
      '/manage/v1/api-keys',
      '/manage/v1/me',
    ]) {
      const r = await as(viewer, 'GET', path);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
    }
    assert.equal(((await as(viewer, 'GET', '/manage/v1/me')).body as Json).role, 'viewer');
  });

  test('gets 403 insufficient_role on every write', async () => {
    const writes = OPERATIONS.filter((op) => op.method !== 'GET');
    assert.ok(writes.length >= 25);
    for (const op of writes) {
      const path = op.path.replace(/\{(\w+)\}/g, '$1_x');
      const r = await as(viewer, op.method, path, op.input.body ? {} : undefined);
      assert.equal(r.status, 403, `${op.name}: ${r.text}`);
      assert.equal(codeOf(r), 'insufficient_role', op.name);
    }
  });

  test('gets 403 on inference through both SDKs, before any upstream call', async () => {
    env.fake.clearRequests();
    for (const baseURL of [`${env.gw.url}/alpha/v1`, `${env.gw.url}/v1`]) {
      const openai = new OpenAI({ apiKey: viewer, baseURL, maxRetries: 0 });
      const err = await openai.chat.completions
        .create({ model: env.models.openai as string, max_tokens: 5, messages: hi })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assert.equal(err.status, 403);
      assert.equal(err.code, 'insufficient_role');
      assert.equal(err.type, 'permission_error');
      assert.match(err.message, /'inference'/);
      const emb = await openai.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'x' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.equal((emb as InstanceType<typeof OpenAI.APIError>).status, 403);
    }
    for (const baseURL of [`${env.gw.url}/beta`, env.gw.url]) {
      const anthropic = new Anthropic({ apiKey: viewer, baseURL, maxRetries: 0 });
      const err = await anthropic.messages
        .create({ model: env.models.anthropic as string, max_tokens: 5, messages: hi })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof Anthropic.APIError, String(err));
      assert.equal(err.status, 403);
      const body = err.error as { error: { type: string; message: string } };
      assert.equal(body.error.type, 'permission_error');
      assert.match(body.error.message, /'inference'/);
    }
    assert.deepEqual(env.fake.requests(), [], 'nothing went upstream');
  });
});

describe('keys and their roles', () => {
  test('default by scope, returned on create, list and /me; unknown roles are a 400', async () => {
    const org = await createKey({ name: 'org default' });
    assert.equal(org.role, 'admin');
    const proj = await createKey({ name: 'project default', project_id: projectId });
    assert.equal(proj.role, 'inference');
    const listed = (await admin('GET', '/manage/v1/api-keys?limit=200')).body as { data: Json[] };
    assert.equal(listed.data.find((k) => k.id === proj.id)?.role, 'inference');
    const bad = await admin('POST', '/manage/v1/api-keys', { name: 'x', role: 'owner' });
    assert.equal(bad.status, 400, bad.text);
  });

  test('an org-wide inference key calls models and nothing in management but /me', async () => {
    const k = await createKey({ name: 'runner', role: 'inference' });
    const openai = new OpenAI({ apiKey: k.key, baseURL: `${env.gw.url}/v1`, maxRetries: 0 });
    const ok = await openai.chat.completions.create({
      model: env.models.openai as string,
      max_tokens: 5,
      messages: hi,
    });
    assert.ok(ok.choices.length > 0);
    assert.equal((await as(k.key, 'GET', '/manage/v1/me')).status, 200);
    const logs = await as(k.key, 'GET', '/manage/v1/logs');
    assert.equal(logs.status, 403);
    assert.match((logs.body as ErrorBody).error?.message ?? '', /'viewer' role/);
  });

  test('a developer cannot hand out or touch more than it has', async () => {
    const dev = await createKey({ name: 'dev', role: 'developer' });
    const refused = await as(dev.key, 'POST', '/manage/v1/api-keys', { name: 'escalate', role: 'admin' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(codeOf(refused), 'insufficient_role');
    assert.match((refused.body as ErrorBody).error?.message ?? '', /'admin' role/);
    // No role named: an org-wide key would be admin, so it gets the creator's role instead.
    const made = await createKey({ name: 'made by dev' }, dev.key);
    assert.equal(made.role, 'developer');
    const viewer = await createKey({ name: 'dev viewer', role: 'viewer' }, dev.key);
    const renamed = await as(dev.key, 'PATCH', `/manage/v1/api-keys/${viewer.id}`, { name: 'renamed' });
    assert.equal(renamed.status, 200, renamed.text);
    const promote = await as(dev.key, 'PATCH', `/manage/v1/api-keys/${viewer.id}`, { role: 'admin' });
    assert.equal(codeOf(promote), 'insufficient_role');

    const target = await createKey({ name: 'an admin key', role: 'admin' });
    for (const [method, path, body] of [
      ['PATCH', `/manage/v1/api-keys/${target.id}`, { name: 'mine now' }],
      ['POST', `/manage/v1/api-keys/${target.id}/rotate`, {}],
      ['DELETE', `/manage/v1/api-keys/${target.id}`, undefined],
    ] as const) {
      const r = await as(dev.key, method, path, body);
      assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
      assert.equal(codeOf(r), 'insufficient_role');
    }
    const still = await as(target.key, 'GET', '/manage/v1/me');
    assert.equal(still.status, 200, 'the admin key was neither rotated nor revoked');
  });

  test('a developer bound to a project manages that project and its keys only', async () => {
    const dev = await createKey({ name: 'project dev', project_id: projectId, role: 'developer' });
    const own = await createKey({ name: 'own' }, dev.key);
    assert.equal(own.project_id, projectId, 'bound to the creator project by default');
    assert.equal(own.role, 'inference');
    for (const body of [{ project_id: otherProjectId }, { project_id: null }]) {
      const r = await as(dev.key, 'POST', '/manage/v1/api-keys', { name: 'elsewhere', ...body });
      assert.equal(r.status, 403, r.text);
      assert.equal(codeOf(r), 'project_out_of_scope');
    }
    const foreign = await createKey({ name: 'foreign', project_id: otherProjectId });
    const revoke = await as(dev.key, 'DELETE', `/manage/v1/api-keys/${foreign.id}`);
    assert.equal(codeOf(revoke), 'project_out_of_scope');
    const listed = (await as(dev.key, 'GET', '/manage/v1/api-keys?limit=200')).body as { data: Json[] };
    assert.ok(listed.data.length >= 2);
    assert.ok(
      listed.data.every((k) => k.project_id === projectId),
      JSON.stringify(listed.data),
    );
    const asked = await as(dev.key, 'GET', `/manage/v1/api-keys?project_id=${otherProjectId}`);
    assert.equal(codeOf(asked), 'project_out_of_scope');
    // Org-level resources stay with org-wide callers.
    assert.equal(codeOf(await as(dev.key, 'GET', '/manage/v1/providers')), 'insufficient_scope');
  });

  test("a role change applies to the key's next call", async () => {
    const k = await createKey({ name: 'changing', role: 'inference' });
    const openai = new OpenAI({ apiKey: k.key, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
    const chat = () =>
      openai.chat.completions.create({ model: env.models.openai as string, max_tokens: 5, messages: hi }).then(
        () => 200,
        (e: InstanceType<typeof OpenAI.APIError>) => e.status,
      );
    assert.equal(await chat(), 200);
    assert.equal((await admin('PATCH', `/manage/v1/api-keys/${k.id}`, { role: 'viewer' })).status, 200);
    assert.equal(await chat(), 403);
    assert.equal((await as(k.key, 'GET', '/manage/v1/providers')).status, 200);
    assert.equal(((await as(k.key, 'GET', '/manage/v1/me')).body as Json).role, 'viewer');
  });
});
