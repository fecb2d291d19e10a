// Bad input is a 400 with a clear message naming the field, never a 500; unknown routes are 404 in
// the family shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compileEveryValidator } from '../../src/manage/validation.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

type Err = { error: { message: string; type: string; param: string | null; code: string | null } };

describe('validation and error shapes', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway();
  });
  after(async () => gw?.close());

  test('bad bodies and queries give 400 naming the problem', async () => {
    const cases: Array<[string, string, unknown, RegExp, string | null]> = [
      ['POST', '/manage/v1/projects', '{"name": "x",', /Malformed JSON/, null],
      ['POST', '/manage/v1/projects', { name: 42 }, /'name'.*string/, 'name'],
      ['POST', '/manage/v1/projects', { name: 'x'.repeat(201) }, /'name'.*at most 200/, 'name'],
      ['POST', '/manage/v1/projects', { description: 'x' }, /Missing required body field 'name'/, 'name'],
      ['POST', '/manage/v1/projects', { name: 'x', bogus: true }, /Unknown body field 'bogus'/, 'bogus'],
      [
        'POST',
        '/manage/v1/projects',
        { name: 'x', settings: { log_bodies: 'yes' } },
        /settings.log_bodies/,
        'settings.log_bodies',
      ],
      ['POST', '/manage/v1/projects', '[1,2]', /Request body must be object/, null],
      ['POST', '/manage/v1/providers', { vendor: 'acme', api_key: 'k' }, /must be one of: openai/, 'vendor'],
      ['POST', '/manage/v1/providers', { vendor: 'openai', api_key: 'k'.repeat(9000) }, /at most 8192/, 'api_key'],
      ['GET', '/manage/v1/projects?limit=abc', undefined, /'limit'.*integer/, 'limit'],
      ['GET', '/manage/v1/projects?limit=500', undefined, /'limit'/, 'limit'],
      ['GET', '/manage/v1/projects?include_deleted=maybe', undefined, /'include_deleted'.*boolean/, 'include_deleted'],
      ['GET', '/manage/v1/projects?unknown=1', undefined, /Unknown query parameter 'unknown'/, 'unknown'],
      ['PATCH', '/manage/v1/projects/x', { name: '' }, /at least 1/, 'name'],
    ];
    for (const [method, path, body, message, param] of cases) {
      const r = await call(gw, method, path, body);
      assert.equal(r.status, 400, `${method} ${path} ${r.text}`);
      const e = (r.body as Err).error;
      assert.match(e.message, message);
      assert.equal(e.type, 'invalid_request_error');
      assert.equal(e.param, param, r.text);
    }
  });

  test('wrong content type and empty bodies are 400, not 415/500', async () => {
    const res = await fetch(`${gw.url}/manage/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as Err).error.message, /Content-Type/);
    const empty = await fetch(`${gw.url}/manage/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
    });
    assert.equal(empty.status, 400);
    // All-optional bodies accept an empty POST.
    const key = await fetch(`${gw.url}/manage/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.adminKey}` },
    });
    assert.equal(key.status, 201);
  });

  test('unknown routes are 404 in the family shape', async () => {
    const alpha = await call(gw, 'GET', '/manage/v1/nothing-here');
    assert.equal(alpha.status, 404);
    assert.equal((alpha.body as Err).error.type, 'not_found_error');
    const beta = await call(gw, 'GET', '/beta/v1/nothing-here');
    assert.equal(beta.status, 404);
    assert.deepEqual(beta.body, {
      type: 'error',
      error: { type: 'not_found_error', message: 'Unknown route: GET /beta/v1/nothing-here' },
    });
    const pub = await fetch(`${gw.url}/nope`);
    assert.equal(pub.status, 404);
  });

  test('unknown ids are 404', async () => {
    for (const path of [
      '/manage/v1/projects/proj_x',
      '/manage/v1/providers/prov_x',
      '/manage/v1/providers/prov_x/health',
    ]) {
      const r = await call(gw, 'GET', path);
      assert.equal(r.status, 404, path);
    }
    assert.equal((await call(gw, 'DELETE', '/manage/v1/api-keys/key_x')).status, 404);
  });

  test('every route schema compiles (start-up no longer compiles them: each on its first call)', () => {
    // A schema ajv rejects would otherwise surface only when its route is first called.
    assert.ok(compileEveryValidator(gw.app) > 100);
    assert.equal(compileEveryValidator(gw.app), 0, 'compiled once');
  });
});
