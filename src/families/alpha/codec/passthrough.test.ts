import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripForPassthrough } from './decode-request.ts';

describe('stripForPassthrough', () => {
  it('keeps the five pass-through fields exactly as sent and removes gateway keys', () => {
    const sent =
      '{"model":"@fast","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{"a":{"type":"number"}}},"strict":true}},"seed":42,"logprobs":true,"top_logprobs":20,"parallel_tool_calls":false,"svc:tags":{"a":"b"},"metadata":{"trace_id":"t"},"extra_body":{"svc:trace":true,"custom":1},"service_tier":"flex"}';
    const out = stripForPassthrough(JSON.parse(sent), 'gpt-4o-mini');
    assert.equal(
      out,
      '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{"a":{"type":"number"}}},"strict":true}},"seed":42,"logprobs":true,"top_logprobs":20,"parallel_tool_calls":false,"extra_body":{"custom":1},"service_tier":"flex"}',
    );
    for (const field of ['response_format', 'seed', 'logprobs', 'top_logprobs', 'parallel_tool_calls']) {
      assert.equal(JSON.stringify(JSON.parse(out)[field]), JSON.stringify(JSON.parse(sent)[field]), field);
    }
  });

  it('leaves unset pass-through fields absent and drops an emptied extra_body', () => {
    const out = stripForPassthrough(
      { model: 'x', messages: [], extra_body: { 'svc:end_user': 'u' }, 'svc:cache': { skip: true } },
      'gpt-4o',
    );
    assert.equal(out, '{"model":"gpt-4o","messages":[]}');
    for (const field of ['response_format', 'seed', 'logprobs', 'top_logprobs', 'parallel_tool_calls', 'user']) {
      assert.equal(field in JSON.parse(out), false, field);
    }
  });

  it('overrides user only when asked', () => {
    assert.equal(stripForPassthrough({ model: 'a', user: 'body' }, 'b'), '{"model":"b","user":"body"}');
    assert.equal(stripForPassthrough({ model: 'a', user: 'body' }, 'b', 'hdr'), '{"model":"b","user":"hdr"}');
    assert.equal(stripForPassthrough({ model: 'a' }, 'b', 'hdr'), '{"model":"b","user":"hdr"}');
  });
});
