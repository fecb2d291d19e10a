import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobQueue } from '../jobs/types.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import type { RawServed } from '../pipeline/raw-call.ts';
import type { ResponseStore } from '../store/responses.ts';
import { BackgroundCompletion } from './background.ts';

test('a held background create keeps no more of its body than its log row will', () => {
  const bg = new BackgroundCompletion({
    pipeline: {} as PipelineDeps,
    store: {} as ResponseStore,
    jobs: {} as JobQueue,
    pollMs: 1000,
    logBodyMaxChars: 64 * 1024,
  });
  const input = 'x'.repeat(5 * 1024 * 1024);
  const body = { model: 'gpt-4o-mini', background: true, input };
  const big = { call: { body, rawBody: JSON.stringify(body) } } as unknown as RawServed;
  const parsedOnly = { call: { body: { ...body } } } as unknown as RawServed;
  const small = { call: { body: { input: 'hi' }, rawBody: '{"input":"hi"}' } } as unknown as RawServed;
  bg.hold('resp_1', big);
  bg.hold('resp_2', parsedOnly);
  bg.hold('resp_3', small);
  for (const held of [big, parsedOnly]) {
    assert.equal(held.call.body, null);
    assert.ok((held.call.rawBody ?? '').length < 65 * 1024, `${held.call.rawBody?.length} characters held`);
    assert.match(held.call.rawBody ?? '', /…\[truncated: \d+ characters\]$/);
  }
  assert.equal(small.call.rawBody, '{"input":"hi"}');
  bg.close();
});
