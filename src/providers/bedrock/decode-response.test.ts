import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { text, thinking, toolUse } from '../../ir/test-kit.ts';
import { fixtureJson } from '../shared/fixtures.ts';
import { fromConverseResponse } from './decode-response.ts';

describe('fromConverseResponse', () => {
  it('maps reasoning with signature, text, stop and cache usage', () => {
    const res = fromConverseResponse(fixtureJson('bedrock', 'converse-text.json'), 'amazon.nova-pro-v1:0');
    assert.match(res.id, /^msg_bdrk_/);
    assert.deepEqual(
      { ...res, id: 'ID' },
      {
        id: 'ID',
        model: 'amazon.nova-pro-v1:0',
        content: [thinking('User greets me.', 'sig-xyz'), text('Hello there!')],
        stopReason: 'end_turn',
        rawStopReason: 'end_turn',
        stopSequence: null,
        usage: { input: 11, output: 7, cacheRead: 20 },
      },
    );
  });

  it('maps tool use, redacted reasoning and cache writes', () => {
    const res = fromConverseResponse(fixtureJson('bedrock', 'converse-tool.json'), 'm');
    assert.deepEqual(res.content, [
      text('Looking it up.'),
      toolUse('tooluse_aBc123', 'get_weather', { city: 'Paris' }),
      { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
    ]);
    assert.equal(res.stopReason, 'tool_use');
    assert.deepEqual(res.usage, { input: 50, output: 21, cacheWrite: 30 });
  });

  it('maps guardrail interventions to content_filter', () => {
    const res = fromConverseResponse(fixtureJson('bedrock', 'converse-guardrail.json'), 'm');
    assert.deepEqual([res.stopReason, res.rawStopReason], ['content_filter', 'guardrail_intervened']);
  });
});
