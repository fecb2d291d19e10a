// Smoke test against the fake upstream (tools/fake-upstream) through the real executor.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useFakeUpstream } from '../../../test/helpers/fake-upstream.ts';
import { sendUpstream } from '../http.ts';
import { smokeChat } from '../shared/integration-support.ts';
import type { Target } from '../types.ts';
import { anthropicAdapter } from './index.ts';

const fake = useFakeUpstream();

test('anthropic: chat, stream, tools, thinking, errors against the fake', async () => {
  const t: Target = {
    vendor: 'anthropic',
    model: 'claude-haiku-4-5',
    credential: { apiKey: 'sk-ant-test-0001', baseUrl: `${fake.url}/anthropic` },
  };
  await smokeChat(anthropicAdapter, t);
  const res = await sendUpstream(await anthropicAdapter.verifyKeyRequest(t.credential));
  await res.body.dump();
  assert.equal(res.status, 200);
});
