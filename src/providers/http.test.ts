import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendUpstream, UpstreamTransportError } from './http.ts';

async function failure(url: string): Promise<string> {
  try {
    await sendUpstream({ method: 'GET', url, headers: {} });
  } catch (err) {
    assert.ok(err instanceof UpstreamTransportError);
    return err.info.message;
  }
  return assert.fail('the call should have failed');
}

test('a network failure says what happened, never where: callers must not learn internal hosts', async () => {
  const refused = await failure('http://127.0.0.1:1/v1/models');
  assert.equal(refused, 'upstream unreachable: connection refused (ECONNREFUSED)');
  const unknown = await failure('http://llm-internal.corp.invalid:8443/v1/models');
  assert.match(unknown, /^upstream unreachable: host name (not found|lookup failed) \((ENOTFOUND|EAI_AGAIN)\)$/);
  for (const m of [refused, unknown]) assert.doesNotMatch(m, /127\.0\.0\.1|corp\.invalid|8443|:1\b/);
});
