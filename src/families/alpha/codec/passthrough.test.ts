import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { betaCodec } from '../../beta/codec.ts';
import { alphaCodec } from '../codec.ts';
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

describe('alphaCodec.passthroughBody with the caller text', () => {
  const opts = { stream: false, includeUsage: false };
  const raw =
    '{ "messages": [{"role":"user","content":"caf\\u00e9 \\"model\\": 1"}],\n  "model" : "@fast", "seed": 1.0 }';

  it('sends the caller bytes with only the model value replaced', () => {
    const out = alphaCodec.passthroughBody(JSON.parse(raw), 'gpt-4o-mini', { ...opts, rawBody: raw });
    assert.equal(out, raw.replace('"@fast"', '"gpt-4o-mini"'));
  });

  it('adds the usage option to a stream that has no stream_options, else merges into the parsed body', () => {
    const streamRaw = '{"model":"a","stream":true,"messages":[]}';
    const out = alphaCodec.passthroughBody(JSON.parse(streamRaw), 'b', {
      stream: true,
      includeUsage: false,
      rawBody: streamRaw,
    });
    assert.equal(out, '{"model":"b","stream":true,"messages":[],"stream_options":{"include_usage":true}}');
    const merged = '{"model":"a","stream":true,"stream_options":{"include_obfuscation":false}}';
    assert.deepEqual(
      JSON.parse(
        alphaCodec.passthroughBody(JSON.parse(merged), 'b', { stream: true, includeUsage: false, rawBody: merged }),
      ),
      { model: 'b', stream: true, stream_options: { include_obfuscation: false, include_usage: true } },
    );
  });

  it('rebuilds the body when something besides the model must change', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['{"model":"a","svc:tags":{"t":"1"}}', { model: 'b' }],
      ['{"model":"a","metadata":{"k":"v"}}', { model: 'b' }],
      ['{"model":"a","extra_body":{"svc:trace":true}}', { model: 'b' }],
      // Repeated keys: the parsed body holds the last one, so that is the one that counts.
      ['{"model":"a","model":"c","seed":1}', { model: 'b', seed: 1 }],
    ];
    for (const [text, expected] of cases) {
      const out = alphaCodec.passthroughBody(JSON.parse(text), 'b', { ...opts, rawBody: text });
      assert.equal(out, JSON.stringify(expected), text);
    }
    const withUser = '{"model":"a","user":"body"}';
    assert.equal(
      alphaCodec.passthroughBody(JSON.parse(withUser), 'b', { ...opts, userOverride: 'hdr', rawBody: withUser }),
      '{"model":"b","user":"hdr"}',
    );
  });

  it('beta keeps the caller bytes the same way', () => {
    const text = '{"max_tokens": 5, "model": "claude-x", "messages": []}';
    assert.equal(
      betaCodec.passthroughBody(JSON.parse(text), 'claude-y', { ...opts, rawBody: text }),
      '{"max_tokens": 5, "model": "claude-y", "messages": []}',
    );
    const meta = '{"model":"claude-x","metadata":{"user_id":"u"}}';
    assert.equal(
      betaCodec.passthroughBody(JSON.parse(meta), 'claude-y', { ...opts, rawBody: meta }),
      '{"model":"claude-y"}',
    );
  });
});
