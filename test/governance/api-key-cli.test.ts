// The offline `keys` commands carry the key controls: create with an allow-list, expiry and metadata,
// and rotate with a grace period, against the store of a running gateway that picks both up.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'switchyard.js');
let gw: Gateway;

before(async () => {
  gw = await startGateway();
});
after(async () => gw?.close());

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'keys', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SWITCHYARD_DATA_DIR: gw.dataDir },
  });
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

test('keys create takes --allowed-models, --allowed-tools, --expires-at and --metadata; keys rotate keeps the old key for the grace', async () => {
  const made = cli(
    'create',
    '--name',
    'cli-limited',
    '--allowed-models',
    'gpt-4o*, @support-*',
    '--allowed-tools',
    'memory__*',
    '--expires-at',
    '2099-01-01T00:00:00Z',
    '--metadata',
    'team=search',
    '--metadata',
    'env=prod',
  );
  assert.equal(made.status, 0, made.stderr);
  const [meta, plaintext = ''] = made.stdout.trim().split('\n');
  const keyId = meta?.split('\t')[0] ?? '';
  const me = await call({ url: gw.url, adminKey: plaintext }, 'GET', '/manage/v1/me');
  assert.equal(me.status, 200, me.text);
  const body = me.body as { allowed_models: string[]; allowed_tools: string[]; expires_at: string };
  assert.deepEqual(body.allowed_models, ['gpt-4o*', '@support-*']);
  assert.deepEqual(body.allowed_tools, ['memory__*']);
  assert.equal(body.expires_at, '2099-01-01T00:00:00.000Z');
  const listed = (await call(gw, 'GET', '/manage/v1/api-keys?limit=200')).body as {
    data: Array<{ id: string; metadata: unknown }>;
  };
  assert.deepEqual(listed.data.find((k) => k.id === keyId)?.metadata, { team: 'search', env: 'prod' });

  assert.equal(cli('create', '--expires-at', 'soon').status, 2);
  assert.equal(cli('rotate', keyId, '--grace-period', '604801').status, 2);

  const rotated = cli('rotate', keyId, '--grace-period', '60');
  assert.equal(rotated.status, 0, rotated.stderr);
  const fresh = rotated.stdout.trim().split('\n')[1] ?? '';
  assert.notEqual(fresh, plaintext);
  // The running gateway sees the rotation by its poll; within the grace both plaintexts work.
  await gw.app.svc.principals.refresh();
  for (const k of [plaintext, fresh])
    assert.equal((await call({ url: gw.url, adminKey: k }, 'GET', '/manage/v1/me')).status, 200);
  assert.equal(cli('rotate', 'key_nope').status, 1);
});
