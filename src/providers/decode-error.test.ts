// Every wire reads a bare status the same way (errors/upstream.ts); only a body that names its class
// more precisely may differ.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kindForStatus } from '../errors/upstream.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import { bedrockAnthropicAdapter, bedrockConverseAdapter, bedrockStreamException } from './bedrock/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { openaiCompatibleAdapter } from './openai-compatible/index.ts';

const adapters = {
  openai: openaiCompatibleAdapter('openai'),
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  'bedrock-converse': bedrockConverseAdapter,
  'bedrock-anthropic': bedrockAnthropicAdapter,
};

test('a status without a telling body means the same on every wire', () => {
  for (const status of [400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529]) {
    for (const [wire, adapter] of Object.entries(adapters)) {
      for (const body of ['', 'oops', '{}']) {
        const info = adapter.decodeError(status, body, {});
        assert.equal(info.kind, kindForStatus(status), `${wire} ${status} ${JSON.stringify(body)}`);
        assert.equal(info.status, status);
      }
    }
  }
});

test('bedrockStreamException: the status and class come from the exception name', () => {
  assert.deepEqual(bedrockStreamException('throttlingException', '{"message":"Too many tokens"}'), {
    status: 429,
    kind: 'rate_limit',
    message: 'Too many tokens',
    code: 'throttlingException',
    retryable: true,
    raw: '{"message":"Too many tokens"}',
  });
  const overloaded = bedrockStreamException('serviceUnavailableException', '{}');
  assert.deepEqual(
    [overloaded.status, overloaded.kind, overloaded.message, overloaded.retryable],
    [503, 'overloaded', 'serviceUnavailableException', true],
  );
  const model = bedrockStreamException('modelStreamErrorException', '{"message":"boom"}');
  assert.deepEqual([model.status, model.kind, model.retryable], [424, 'server', false]);
  const unknown = bedrockStreamException(undefined, 'not json');
  assert.deepEqual([unknown.status, unknown.kind, unknown.code, unknown.message], [500, 'server', null, 'not json']);
});
