// Audit action names come from the operation list: every write gets `<resource>.<verb>` without
// a per-operation declaration, and secrets are redacted from whatever a snapshot holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditActionOf, redact } from '../../src/manage/audit.ts';
import { OPERATIONS } from '../../src/manage/operations.ts';

const actionOf = (name: string) => {
  const op = OPERATIONS.find((o) => o.name === name);
  assert.ok(op, name);
  return auditActionOf(OPERATIONS, op);
};

test('every write operation has an action; reads have none', () => {
  for (const op of OPERATIONS) {
    const action = auditActionOf(OPERATIONS, op);
    if (op.method === 'GET') assert.equal(action, undefined, op.name);
    else assert.match(action ?? '', /^[a-z_]+\.[a-z]+$/, op.name);
  }
  assert.deepEqual(
    [
      'update_routing_config',
      'create_routing_config',
      'restore_routing_config_version',
      'create_api_key',
      'revoke_api_key',
      'add_provider',
      'rotate_webhook_secret',
      'purge_project_cache',
    ].map(actionOf),
    [
      'routing_config.update',
      'routing_config.create',
      'routing_config.restore',
      'api_key.create',
      'api_key.revoke',
      'provider.add',
      'webhook_endpoint.rotate',
      'project.purge',
    ],
  );
});

test('secrets are redacted by field name and by shape, other values kept', () => {
  const out = redact({
    name: 'x',
    key: 'sy-plaintext',
    signing_secret: 'whsec_abc',
    nested: [{ api_key: 'k', key_ciphertext: 'c', max_tokens: 5, prefix: 'sy-abc1234' }],
    header: 'Bearer abcdefghijklmnopqrstuvwxyz',
    stray: 'sk-proj-abcdefghijklmnopqrstuvwxyz',
    none: null,
  });
  assert.deepEqual(out, {
    name: 'x',
    key: '[redacted]',
    signing_secret: '[redacted]',
    nested: [{ api_key: '[redacted]', key_ciphertext: '[redacted]', max_tokens: 5, prefix: 'sy-abc1234' }],
    header: '[redacted]',
    stray: '[redacted]',
    none: null,
  });
});
