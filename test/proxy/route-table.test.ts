// The proxy routes are listed once (src/manage/proxy-paths.ts): the gateway serves exactly the
// listed routes under /alpha and /beta, and /openapi.yaml documents the same list. A route file
// that registers a path of its own, or a row nothing serves, fails here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { routerPath } from '../../src/http/route-table.ts';
import { PROXY_PATHS } from '../../src/manage/proxy-paths.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

/**
 * Every method and path of the router, read from fastify's printed route tree: each line is one
 * segment, indented four columns per level under its parent, with the methods in brackets.
 */
function servedRoutes(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.splice(depth, stack.length - depth, m[2]);
    const path = stack.join('');
    for (const method of m[3].split(', ')) out.push(`${method} ${path}`);
  }
  return out;
}

describe('the proxy route list', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway();
  });
  after(async () => gw?.close());

  test('the gateway serves exactly the listed proxy routes', () => {
    const served = servedRoutes(gw.app.printRoutes({ commonPrefix: false }))
      .filter((r) => / \/(alpha|beta)\//.test(r) && !r.startsWith('HEAD '))
      .sort();
    const listed = PROXY_PATHS.map((p) => `${p.method} ${routerPath(p.path)}`).sort();
    // Management routes are read from the same tree: a parse that found nothing proves nothing.
    assert.ok(
      servedRoutes(gw.app.printRoutes({ commonPrefix: false })).includes('GET /manage/v1/projects'),
      'the route tree was read',
    );
    assert.deepEqual(served, listed);
  });

  test('rows are unique and take no path parameter but {id}', () => {
    const keys = PROXY_PATHS.map((p) => `${p.group}.${p.route}`);
    assert.equal(new Set(keys).size, keys.length);
    const paths = PROXY_PATHS.map((p) => `${p.method} ${p.path}`);
    assert.equal(new Set(paths).size, paths.length);
    for (const p of PROXY_PATHS) {
      const params = [...p.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      assert.ok(
        params.every((name) => name === 'id'),
        `${p.path}: path parameters ${params}`,
      );
      assert.ok(p.path.startsWith(`/${p.family}/v1/`), `${p.path} is under its family`);
    }
  });

  test('a row that takes a JSON body refuses an empty one, in its family shape', async () => {
    const rows = PROXY_PATHS.filter((p) => p.jsonBody);
    assert.ok(rows.length >= 8);
    for (const p of rows) {
      const res = await call(gw, p.method, p.path.replace('{id}', 'x'), '');
      assert.equal(res.status, 400, p.path);
      const expected =
        p.family === 'beta'
          ? { type: 'error', error: { type: 'invalid_request_error', message: 'Request body is empty' } }
          : {
              error: {
                message: 'Request body is empty',
                type: 'invalid_request_error',
                param: null,
                code: 'empty_body',
              },
            };
      assert.deepEqual(res.body, expected, p.path);
    }
  });

  test('a row without a JSON body is not refused for lacking one', async () => {
    const res = await call(gw, 'GET', '/alpha/v1/models');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { object: 'list', data: [] });
    const beta = await call(gw, 'GET', '/beta/v1/models');
    assert.deepEqual(beta.body, { data: [], has_more: false });
  });
});
