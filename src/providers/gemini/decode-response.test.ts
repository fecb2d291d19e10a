import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { text, thinking, toolUse } from '../../ir/test-kit.ts';
import { fixtureJson } from '../shared/fixtures.ts';
import { fromGeminiResponse } from './decode-response.ts';

const json = (name: string): unknown => fixtureJson('gemini', name);

function ids() {
  let n = 0;
  return () => `call_test${++n}`;
}

describe('fromGeminiResponse', () => {
  it('maps thoughts, merged text, finish and usage (cached tokens out of input)', () => {
    assert.deepEqual(fromGeminiResponse(json('text-with-thoughts.json'), 'gemini-2.5-flash', ids()), {
      id: 'resp-abc123',
      model: 'gemini-2.5-flash',
      content: [thinking('Considering the greeting.'), text('Hello, world!')],
      stopReason: 'end_turn',
      rawStopReason: 'STOP',
      stopSequence: null,
      usage: { input: 4, output: 34, cacheRead: 8 },
    });
  });

  it('turns STOP with function calls into tool_use, keeping the call signature before its call', () => {
    const res = fromGeminiResponse(json('function-call.json'), 'gemini-2.5-pro', ids());
    assert.equal(res.stopReason, 'tool_use');
    assert.equal(res.rawStopReason, 'STOP');
    assert.match(res.id, /^gen_/);
    assert.deepEqual(res.content, [
      text('Let me check.'),
      thinking('', 'c2lnLTE='),
      toolUse('call_test1', 'get_weather', { city: 'Paris' }),
      toolUse('call_test2', 'get_time', {}),
    ]);
    assert.deepEqual(res.usage, { input: 40, output: 18 });
  });

  it('reports a blocked prompt as content_filter with no content', () => {
    const res = fromGeminiResponse(json('prompt-blocked.json'), 'gemini-2.5-flash');
    assert.deepEqual([res.content, res.stopReason, res.rawStopReason], [[], 'content_filter', 'SAFETY']);
  });

  it('maps MAX_TOKENS', () => {
    const res = fromGeminiResponse(json('max-tokens.json'), 'gemini-2.0-flash');
    assert.equal(res.stopReason, 'max_tokens');
  });

  it('generates call ids in the call_<24 chars> form when none are given', () => {
    const res = fromGeminiResponse(json('function-call.json'), 'gemini-2.5-pro');
    const tool = res.content.find((b) => b.type === 'tool_use');
    assert.match(tool?.type === 'tool_use' ? tool.id : '', /^call_[A-Za-z0-9]{24}$/);
  });
});
