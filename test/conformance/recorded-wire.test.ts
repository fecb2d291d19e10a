// Conformance on real wire data: every answer in ../shared/recorded-wire/ (Anthropic, OpenAI, Gemini,
// Bedrock; JSON bodies, SSE streams and Bedrock's binary eventstream) is served as the upstream, in
// 7-byte pieces, and called through both families with their official SDKs. What the SDK hands the
// application must be what the vendor said: text, tool calls (ids, names, arguments), the finish
// reason, usage, and on the beta wire thinking text and signatures (alpha has no place for them).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { api, vendorCredentials } from '../helpers/proxy-env.ts';
import { type Said, whatTheVendorSaid } from './recorded-oracle.ts';
import { alphaWire, betaWire } from './recorded-raw.ts';
import { callAlpha, callBeta, type RecordedCall } from './recorded-sdk.ts';
import {
  loadRecording,
  RECORDED_DIR,
  type RecordedUpstream,
  type RecordedVendor,
  type Recording,
  recordedWireMissing,
  startRecordedUpstream,
} from './recorded-wire.ts';

const RECORDINGS = [
  'anthropic/thinking-text.sse',
  'anthropic/thinking-text.json',
  'anthropic/tool-quoted.chunks.txt',
  'anthropic/tool-quoted.json',
  'openai/text.sse',
  'openai/text.json',
  'openai/tool.sse',
  'openai/tool.json',
  'google/text.sse',
  'google/text.json',
  'google/tool.sse',
  'google/tool.json',
  'bedrock/text.eventstream',
  'bedrock/text.json',
  'bedrock/tool.eventstream',
  'bedrock/reasoning.eventstream',
  'bedrock/tool.json',
];

/**
 * The gateway model each vendor's recordings are served under. Bedrock's are Converse answers
 * (Nova, and Claude through Converse); a Claude model id would go through InvokeModel instead, so a
 * Converse-only id stands in: the stream decoder is the same for every model on Converse.
 */
const MODELS: Record<RecordedVendor, string> = {
  anthropic: 'anthropic/claude-sonnet-4-20250514',
  openai: 'openai/gpt-4o-mini',
  google: 'google/gemini-2.0-flash',
  bedrock: 'bedrock/us.amazon.nova-micro-v1:0',
};

/** What the gateway must have asked the upstream for, so the recording answers the right call. */
const UPSTREAM_CALL: Record<RecordedVendor, { stream: RegExp; json: RegExp }> = {
  anthropic: { stream: /^POST \/anthropic\/v1\/messages/, json: /^POST \/anthropic\/v1\/messages/ },
  openai: { stream: /^POST \/openai\/v1\/chat\/completions/, json: /^POST \/openai\/v1\/chat\/completions/ },
  google: { stream: /:streamGenerateContent\?(.*&)?alt=sse/, json: /:generateContent(\?|$)/ },
  bedrock: { stream: /\/converse-stream$/, json: /\/converse$/ },
};

const BETA_FINISH: Record<string, Said['finish']> = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' };

/** The call the recording answers: its tools declared, thinking asked for where it thought. */
function callFor(rec: Recording, said: Said): RecordedCall {
  return {
    model: MODELS[rec.vendor],
    stream: rec.stream,
    tools: [...new Set(said.toolCalls.map((c) => c.name))],
    thinking: said.thinking !== '' || said.signatures.length > 0,
  };
}

function aspects(said: Said): string {
  const out = [said.toolCalls.length > 0 ? 'tool calls' : 'text'];
  if (said.thinking || said.signatures.length > 0) out.push('thinking');
  return out.join(' + ');
}

function assertHeard(family: 'alpha' | 'beta', heard: Said, said: Said): void {
  assert.equal(heard.text, said.text, 'text');
  assert.equal(heard.finish, said.finish, 'finish reason');
  assert.deepEqual(heard.usage, said.usage, 'usage (input, output)');
  assert.equal(heard.toolCalls.length, said.toolCalls.length, `tool calls: ${JSON.stringify(heard.toolCalls)}`);
  said.toolCalls.forEach((want, i) => {
    const got = heard.toolCalls[i];
    assert.equal(got.name, want.name, 'tool name');
    assert.deepEqual(got.input, want.input, 'tool arguments');
    if (want.id) assert.equal(got.id, want.id, 'tool call id kept');
    else assert.ok(got.id && got.id.length > 0, 'a tool call id made up where the vendor sent none');
  });
  if (family === 'beta') {
    assert.equal(heard.thinking, said.thinking, 'thinking text');
    assert.deepEqual(heard.signatures, said.signatures, 'thinking signatures, verbatim');
  }
}

const missing = recordedWireMissing();
// CI lays ../shared beside its clone: there, a missing folder is a broken setup, not a reason to skip.
if (missing && process.env.CI === 'true') test('recorded vendor answers are present in CI', () => assert.fail(missing));

describe('recorded vendor answers through both families (official SDKs)', { skip: missing ?? false }, () => {
  let upstream: RecordedUpstream;
  let gw: Gateway;
  const client = () => ({ url: gw.url, key: gw.adminKey });

  before(async () => {
    upstream = await startRecordedUpstream();
    gw = await startGateway();
    const vendors = new Set<string>(Object.keys(MODELS));
    for (const c of vendorCredentials(upstream.url).filter((v) => vendors.has(v.vendor))) {
      const r = await api(gw, 'POST', '/manage/v1/providers', { ...c, name: `${c.vendor} (recorded)`, verify: false });
      assert.ok(r.status === 200 || r.status === 201, `provider ${c.vendor}: ${r.status} ${JSON.stringify(r.json)}`);
    }
  });
  after(async () => {
    await gw?.close();
    await upstream?.close();
  });

  test('every recording SOURCES.tsv lists is served here', () => {
    const listed = readFileSync(`${RECORDED_DIR}SOURCES.tsv`, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t')[0])
      .filter((f) => f);
    assert.deepEqual([...RECORDINGS].sort(), listed.sort());
  });

  for (const file of RECORDINGS) {
    for (const family of ['alpha', 'beta'] as const) {
      // Loaded lazily: with ../shared absent the describe is skipped and nothing here may throw.
      let rec: Recording | undefined;
      let said: Said | undefined;
      const load = () => {
        rec ??= loadRecording(file);
        said ??= whatTheVendorSaid(rec);
        return { rec, said };
      };
      test(`${file} via ${family}`, async (t) => {
        const { rec, said } = load();
        t.diagnostic(`${aspects(said)}, ${rec.stream ? 'stream' : 'JSON'}, ${rec.bytes.length} bytes`);
        upstream.serve(rec);
        const before = upstream.calls().length;
        const call = callFor(rec, said);
        const heard = family === 'alpha' ? await callAlpha(client(), call) : await callBeta(client(), call);
        const asked = upstream.calls().slice(before);
        assert.equal(asked.length, 1, `one upstream call: ${asked.join(', ')}`);
        assert.match(asked[0], UPSTREAM_CALL[rec.vendor][rec.stream ? 'stream' : 'json']);
        assertHeard(family, heard, said);
      });

      if (file.endsWith('.json')) continue;
      test(`${file} via ${family}: stream wire promises`, async () => {
        const { rec, said } = load();
        upstream.serve(rec);
        const call = callFor(rec, said);
        if (family === 'beta') {
          const seq = await betaWire(client(), call);
          assert.equal(BETA_FINISH[seq.stopReason ?? ''], said.finish, `stop_reason ${seq.stopReason}`);
          assert.equal(seq.outputTokens, said.usage.output, 'message_delta usage.output_tokens');
          return;
        }
        const wire = await alphaWire(client(), call);
        assert.equal(wire.status, 200);
        assert.ok(wire.endsWithDone, 'the stream ends with data: [DONE]');
        assert.equal(wire.finish, said.finish);
        if (said.finish === 'tool_calls')
          assert.deepEqual(
            wire.finishChunkCalls.map((c) => [c.name, c.input]),
            said.toolCalls.map((c) => [c.name, c.input]),
            'the finish chunk carries the complete calls',
          );
      });
    }
  }
});
