import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateGuardrailPolicyInput } from '../../src/guardrails/policy.ts';

const valid = {
  name: 'pii out',
  scope: { type: 'project', id: 'proj_1' },
  mode: 'enforce',
  checks: [
    { type: 'pii', stage: 'input', action: 'mask', entities: ['email', 'credit_card'], restore: true },
    { type: 'regex', stage: 'both', action: 'block', patterns: ['codename\\s+\\w+'], flags: 'i', max_match: 64 },
    { type: 'keywords', stage: 'output', action: 'flag', words: ['confidential'] },
    { type: 'max_input_tokens', stage: 'input', action: 'block', limit: 8000 },
    { type: 'max_messages', stage: 'input', action: 'flag', limit: 50 },
    {
      type: 'webhook',
      stage: 'both',
      action: 'block',
      url: 'https://hooks.example.com/g',
      timeout_ms: 500,
      on_error: 'allow',
    },
  ],
};

const fields = (body: unknown): string[] => validateGuardrailPolicyInput(body).map((e) => e.field);

function withCheck(check: Record<string, unknown>): unknown {
  return { ...valid, checks: [check] };
}

describe('validateGuardrailPolicyInput', () => {
  it('accepts every check type', () => {
    assert.deepEqual(validateGuardrailPolicyInput(valid), []);
  });

  it('names the field of each problem', () => {
    assert.deepEqual(fields({ ...valid, scope: { type: 'project' } }), ['scope.id']);
    assert.deepEqual(fields({ ...valid, mode: 'loud' }), ['mode']);
    assert.deepEqual(fields({ ...valid, extra: 1 }), ['extra']);
    assert.deepEqual(fields({ ...valid, checks: [] }), ['checks']);
    assert.deepEqual(fields(withCheck({ type: 'pii', stage: 'input', action: 'mask', entities: ['email', 'dna'] })), [
      'checks[0].entities[1]',
    ]);
    assert.deepEqual(fields(withCheck({ type: 'regex', stage: 'input', action: 'block', patterns: ['(unclosed'] })), [
      'checks[0].patterns[0]',
    ]);
    assert.deepEqual(
      fields(withCheck({ type: 'regex', stage: 'input', action: 'block', patterns: ['x'], flags: 'g' })),
      ['checks[0].flags'],
    );
    assert.deepEqual(fields(withCheck({ type: 'webhook', stage: 'input', action: 'block', url: 'ftp://x' })), [
      'checks[0].url',
    ]);
    assert.deepEqual(
      fields(withCheck({ type: 'keywords', stage: 'input', action: 'flag', words: ['ok'], entities: [] })),
      ['checks[0].entities'],
    );
  });

  it('requires max_match on a regex that looks at the output (it bounds the stream hold-back)', () => {
    assert.deepEqual(fields(withCheck({ type: 'regex', stage: 'both', action: 'mask', patterns: ['x+'] })), [
      'checks[0].max_match',
    ]);
    assert.deepEqual(fields(withCheck({ type: 'regex', stage: 'input', action: 'mask', patterns: ['x+'] })), []);
  });

  it('refuses meaningless combinations', () => {
    assert.deepEqual(fields(withCheck({ type: 'max_messages', stage: 'output', action: 'mask', limit: 3 })), [
      'checks[0].stage',
      'checks[0].action',
    ]);
    assert.deepEqual(
      fields(withCheck({ type: 'pii', stage: 'output', action: 'mask', entities: ['email'], restore: true })),
      ['checks[0].restore'],
    );
  });

  it('rejects a body that is not an object', () => {
    assert.equal(validateGuardrailPolicyInput([]).length, 1);
    assert.equal(validateGuardrailPolicyInput(null).length, 1);
  });
});
