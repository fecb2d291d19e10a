// The stream guard checks the text of one upstream read at once: deltas pushed within a read come
// out at `endRead` (masked, or cut before a block), never unchecked, and in order with the other
// events; text still unread when the answer ends or breaks goes through the same checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GuardrailStream } from '../../src/guardrails/pipeline-stream.ts';
import { CallVerdicts } from '../../src/guardrails/pipeline-verdicts.ts';
import { PlaceholderBook } from '../../src/guardrails/placeholders.ts';
import type { GuardrailCheck } from '../../src/guardrails/policy.ts';
import type { GuardrailRuntime } from '../../src/guardrails/runtime.ts';
import type { StreamEvent } from '../../src/ir/types.ts';
import type { StreamGuardStep } from '../../src/pipeline/guard.ts';
import type { ProxyCall } from '../../src/pipeline/types.ts';
import { policy } from './fixtures.ts';

const MASK: GuardrailCheck = { type: 'pii', stage: 'output', action: 'mask', entities: ['email'] };
const BLOCK: GuardrailCheck = {
  type: 'regex',
  stage: 'output',
  action: 'block',
  patterns: ['\\bzeus\\b'],
  max_match: 10,
};

function guardOf(checks: GuardrailCheck[]): { guard: GuardrailStream; blocked: string[] } {
  const blocked: string[] = [];
  const rt = {
    countVerdict: () => {},
    events: { blocked: (e: { policyName: string }) => blocked.push(e.policyName) },
  } as unknown as GuardrailRuntime;
  const call = { requestId: 'req_1', principal: { orgId: 'org_1' }, hookTrace: undefined } as unknown as ProxyCall;
  const guard = new GuardrailStream({
    policies: [policy(checks, { name: 'p' })],
    book: new PlaceholderBook(),
    verdicts: new CallVerdicts(rt, call),
    ctx: { request_id: 'req_1', project_id: 'prj_1', model: 'm' },
    callHook: async () => ({ action: 'allow' }),
  });
  return { guard, blocked };
}

const delta = (text: string): StreamEvent => ({ type: 'text_delta', index: 0, text });
const START: StreamEvent = { type: 'block_start', index: 0, block: { type: 'text' } };
const textOf = (steps: StreamGuardStep[]): string =>
  steps
    .flatMap((s) => s.events)
    .map((e) => (e.type === 'text_delta' ? e.text : `<${e.type}>`))
    .join('');

describe('stream guard: one check per upstream read', () => {
  it('holds the deltas of a read until endRead, then releases them checked', () => {
    const { guard } = guardOf([MASK]);
    const steps = [guard.push(START)];
    for (const d of ['Mail ', 'jane', '.doe@exa', 'mple.com now ']) {
      const s = guard.push(delta(d));
      assert.deepEqual(s.events, [], 'no delta leaves before the read ends');
      steps.push(s);
    }
    steps.push(guard.endRead());
    assert.equal(textOf(steps), '<block_start>Mail [EMAIL_1] now ');
  });

  it('an address split over two reads is masked whole', () => {
    const { guard } = guardOf([MASK]);
    const steps = [guard.push(START), guard.push(delta('Mail jane.d')), guard.endRead()];
    assert.equal(textOf(steps), '<block_start>Mail ', 'the unfinished address is held back');
    steps.push(guard.push(delta('oe@example.com')), guard.push(delta(' today')), guard.endRead());
    steps.push(guard.push({ type: 'block_stop', index: 0 }));
    assert.equal(textOf(steps), '<block_start>Mail [EMAIL_1] today<block_stop>');
  });

  it('a block inside a read cuts before the match and ends the stream', () => {
    const { guard, blocked } = guardOf([BLOCK]);
    guard.push(delta('Say hello to '));
    guard.push(delta('zeus and '));
    const s = guard.push(delta('friends'));
    assert.deepEqual(s.events, []);
    const end = guard.endRead();
    assert.equal(textOf([end]), 'Say hello to ');
    assert.equal(end.blocked?.code, 'guardrail_blocked');
    assert.deepEqual(blocked, ['p']);
    assert.deepEqual(guard.push(delta('more')).events, [], 'nothing after a block');
  });

  it('another event ends the read first: text goes out before it, in order', () => {
    const { guard } = guardOf([MASK]);
    guard.push(START);
    guard.push(delta('Hi '));
    guard.push(delta('there.'));
    const s = guard.push({ type: 'block_stop', index: 0 });
    assert.equal(textOf([s]), 'Hi there.<block_stop>');
  });

  it('unread text at the end of the answer and at a break is checked too', async () => {
    const a = guardOf([MASK]).guard;
    a.push(delta('write to a@b.io'));
    assert.equal(textOf([await a.finish()]), 'write to [EMAIL_1]');
    const b = guardOf([MASK]).guard;
    b.push(delta('write to a@b.io'));
    assert.equal(textOf([b.broken()]), 'write to [EMAIL_1]');
  });
});
