// Roles over the whole management API (issue 33 item 2): every operation declares the role it
// needs, the declaration follows the policy, and every operation is called over REST with a
// key of every role; the refused ones answer 403 insufficient_role naming the role needed, the
// others get past the gate. The same declarations show in /openapi.yaml and in the MCP tool list,
// and MCP refuses the same calls.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parse } from 'yaml';
import type { Operation } from '../../src/manage/operation.ts';
import { OPERATIONS } from '../../src/manage/operations.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

type Json = Record<string, unknown>;
type Caller = 'admin' | 'developer' | 'viewer' | 'inference' | 'project_inference' | 'project_developer';

// The policy, written out independently of the declarations it checks.
const PROJECT_READS = new Set(['list_logs', 'get_log', 'get_request_trace', 'get_analytics_report']);
const DEVELOPER_WRITES = /^\/manage\/v1\/(routing-configs|budgets|webhooks|api-keys)(\/|$)/;
// Reads another engineer declared admin-only (people's names and emails); listed so a change is seen.
const ADMIN_READS = new Set(['list_users', 'get_user']);

function policyRole(op: Operation): string {
  if (op.name === 'get_me') return 'any';
  if (op.method === 'GET') {
    if (PROJECT_READS.has(op.name)) return 'inference';
    return ADMIN_READS.has(op.name) ? 'admin' : 'viewer';
  }
  if (DEVELOPER_WRITES.test(op.path) || op.name === 'replay_log_entry') return 'developer';
  return 'admin';
}

// Which callers pass each declared requirement (project_developer passes the role gate like a
// developer; org-level resources may then refuse it for its scope, which is not a role refusal).
const PASSES: Record<string, readonly Caller[]> = {
  any: ['admin', 'developer', 'viewer', 'inference', 'project_inference', 'project_developer'],
  inference: ['admin', 'developer', 'viewer', 'project_inference', 'project_developer'],
  viewer: ['admin', 'developer', 'viewer', 'project_developer'],
  developer: ['admin', 'developer', 'project_developer'],
  admin: ['admin'],
};
const CALLERS = PASSES.any as readonly Caller[];

let gw: Gateway;
const keys = {} as Record<Caller, string>;

before(async () => {
  gw = await startGateway();
  keys.admin = gw.adminKey;
  const project = await call(gw, 'POST', '/manage/v1/projects', { name: 'roles walk' });
  const projectId = (project.body as Json).id as string;
  const make = async (body: Json) => {
    const r = await call(gw, 'POST', '/manage/v1/api-keys', body);
    assert.equal(r.status, 201, r.text);
    return (r.body as { key: string }).key;
  };
  keys.developer = await make({ name: 'dev', role: 'developer' });
  keys.viewer = await make({ name: 'viewer', role: 'viewer' });
  keys.inference = await make({ name: 'org inference', role: 'inference' });
  // No role given: a project key is inference, as project keys always were.
  keys.project_inference = await make({ name: 'project key', project_id: projectId });
  keys.project_developer = await make({ name: 'project dev', project_id: projectId, role: 'developer' });
});
after(async () => gw?.close());

const pathOf = (op: Operation) => op.path.replace(/\{(\w+)\}/g, (_m, name: string) => `${name}_missing`);

async function callAs(caller: Caller, op: Operation) {
  return call({ url: gw.url, adminKey: keys[caller] }, op.method, pathOf(op), op.input.body ? {} : undefined);
}

test('every operation declares the role the policy gives it', () => {
  assert.ok(OPERATIONS.length >= 50, `expected the whole list, got ${OPERATIONS.length}`);
  const wrong = OPERATIONS.filter((op) => op.role !== policyRole(op)).map(
    (op) => `${op.name}: declares ${op.role}, policy says ${policyRole(op)}`,
  );
  assert.deepEqual(wrong, []);
});

describe('every operation for every role over REST', () => {
  for (const op of OPERATIONS) {
    test(`${op.name} (${op.role})`, async () => {
      for (const caller of CALLERS) {
        const r = await callAs(caller, op);
        const error = (r.body as { error?: { code?: string; message?: string } }).error;
        if (PASSES[op.role]?.includes(caller)) {
          assert.notEqual(error?.code, 'insufficient_role', `${caller} was refused ${op.name}: ${r.text}`);
          assert.ok(r.status < 500, `${caller} ${op.name}: ${r.status} ${r.text}`);
        } else {
          assert.equal(r.status, 403, `${caller} ${op.name}: ${r.status} ${r.text}`);
          assert.equal(error?.code, 'insufficient_role', r.text);
          // An org-wide inference key is told what it would take: viewer.
          const needed = op.role === 'inference' ? 'viewer' : op.role;
          assert.match(error?.message ?? '', new RegExp(`'${needed}' role`), r.text);
        }
      }
    });
  }
});

test('the refusal comes before input validation: a viewer posting a bad body hears about its role', async () => {
  const r = await call({ url: gw.url, adminKey: keys.viewer }, 'POST', '/manage/v1/projects', { name: 42 });
  assert.equal(r.status, 403, r.text);
  assert.equal((r.body as { error: { code: string } }).error.code, 'insufficient_role');
});

test('exports outside the operation list hold the same roles', async () => {
  const as = (caller: Caller, path: string) => call({ url: gw.url, adminKey: keys[caller] }, 'GET', path);
  assert.equal((await as('inference', '/manage/v1/logs/export')).status, 403);
  assert.equal((await as('project_inference', '/manage/v1/logs/export')).status, 200);
  assert.equal((await as('viewer', '/manage/v1/logs/export')).status, 200);
  const audit = await as('inference', '/manage/v1/audit-logs/export');
  assert.equal(audit.status, 403);
  assert.match(audit.text, /insufficient_role/);
  assert.equal((await as('viewer', '/manage/v1/audit-logs/export')).status, 200);
});

test('/openapi.yaml carries x-required-role on every management operation', async () => {
  const res = await fetch(`${gw.url}/openapi.yaml`);
  const doc = parse(await res.text()) as { paths: Record<string, Record<string, Json>> };
  for (const op of OPERATIONS) {
    const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
    assert.ok(entry, `${op.name} missing from openapi.yaml`);
    assert.equal(entry['x-required-role'], op.role, op.name);
  }
});

describe('MCP', () => {
  async function withClient<T>(key: string, run: (c: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name: 'roles-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      return await run(client);
    } finally {
      await client.close();
    }
  }

  test('each tool says the role it needs', async () => {
    const tools = await withClient(keys.viewer, async (c) => (await c.listTools()).tools);
    for (const op of OPERATIONS) {
      const tool = tools.find((t) => t.name === op.name);
      assert.ok(tool, op.name);
      const note = op.role === 'any' ? 'any caller' : `needs role ${op.role}`;
      assert.ok(tool.description?.includes(note), `${op.name}: ${tool.description}`);
    }
  });

  test('a viewer is refused every write tool and allowed the reads', async () => {
    await withClient(keys.viewer, async (c) => {
      for (const op of OPERATIONS) {
        const res = await c.callTool({ name: op.name, arguments: {} });
        const text = JSON.stringify(res.content);
        if (PASSES[op.role]?.includes('viewer')) assert.ok(!text.includes('insufficient_role'), `${op.name}: ${text}`);
        else {
          assert.equal(res.isError, true, op.name);
          assert.match(text, new RegExp(`403 insufficient_role: .*'${op.role}' role`), op.name);
        }
      }
    });
  });
});
