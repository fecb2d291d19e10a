// Lossless alpha <-> beta translation where both wires can express it, over seeded generated inputs:
// - requests written in the beta wire: beta -> IR -> alpha wire -> IR -> beta wire (the alpha-first
//   direction is test/families/roundtrip.test.ts);
// - responses: IR -> beta message -> IR -> alpha completion equals IR -> alpha completion directly;
// - streams: IR events -> beta SSE (checked by the event-sequence validator) -> IR -> the same content.
// The failing seed is in every assertion message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAlphaChat } from '../../src/families/alpha/codec/decode-request.ts';
import { encodeAlphaChat } from '../../src/families/alpha/codec/encode-response.ts';
import { decodeBetaMessages } from '../../src/families/beta/codec/decode-request.ts';
import { encodeBetaMessage } from '../../src/families/beta/codec/encode-response.ts';
import { newBetaStreamEncoder } from '../../src/families/beta/codec/stream-encoder.ts';
import type { Block, ChatResponse, StreamEvent } from '../../src/ir/types.ts';
import { fromAnthropicResponse } from '../../src/providers/anthropic/decode-response.ts';
import { toAnthropicBody } from '../../src/providers/anthropic/encode-request.ts';
import {
  anthropicStreamEnd,
  anthropicStreamStep,
  newAnthropicStreamState,
} from '../../src/providers/anthropic/stream-decoder.ts';
import { toOpenAIChatBody } from '../../src/providers/openai-compatible/encode-request.ts';
import { parseSse, validateEventSequence } from './event-sequence.ts';

type Obj = Record<string, unknown>;
type Rand = () => number;

function seeded(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x9e3779b9) >>> 0;
    let t = a ^ (a >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    return ((t ^ (t >>> 15)) >>> 0) / 4294967296;
  };
}

const WORDS = ['cloud', 'Oslo', 'naïve café', '雨', 'emoji 🌧', 'say "hi"', 'two\nlines', '{"k":1}', 'back\\slash'];
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)];
const words = (r: Rand) => Array.from({ length: 1 + int(r, 4) }, () => pick(r, WORDS)).join(' ');
const TOOLS = ['get_weather', 'get_time', 'lookup'];
const args = (r: Rand) => ({ q: words(r), n: int(r, 100), flag: r() < 0.5, tags: [words(r)] });

function image(r: Rand): Obj {
  return r() < 0.5
    ? {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: Buffer.from(words(r)).toString('base64') },
      }
    : { type: 'image', source: { type: 'url', url: `https://img.example/${int(r, 999)}.png` } };
}

function userTurn(r: Rand): Obj {
  if (r() < 0.4) return { role: 'user', content: words(r) };
  const blocks = Array.from({ length: 1 + int(r, 3) }, () => (r() < 0.6 ? { type: 'text', text: words(r) } : image(r)));
  return { role: 'user', content: blocks };
}

/** An assistant turn calling tools, then the user turn answering each call (text-only results). */
function toolExchange(r: Rand, turn: number): Obj[] {
  const calls = Array.from({ length: 1 + int(r, 3) }, (_, i) => ({
    type: 'tool_use',
    id: `toolu_${turn}_${i}_${int(r, 1e6)}`,
    name: pick(r, TOOLS),
    input: args(r),
  }));
  const lead = r() < 0.5 ? [{ type: 'text', text: words(r) }] : [];
  const results = calls.map((c) => ({
    type: 'tool_result',
    tool_use_id: c.id,
    content: r() < 0.5 ? words(r) : [{ type: 'text', text: words(r) }],
  }));
  return [
    { role: 'assistant', content: [...lead, ...calls] },
    { role: 'user', content: results },
  ];
}

function generateBeta(seed: number): Obj {
  const r = seeded(seed);
  const messages: Obj[] = [userTurn(r)];
  const turns = int(r, 4);
  for (let t = 0; t < turns; t++) {
    if (r() < 0.5) {
      // Roles alternate: text the user adds after the results shares the results' turn.
      const [call, results] = toolExchange(r, t);
      if (r() < 0.5) (results.content as Obj[]).push({ type: 'text', text: words(r) });
      messages.push(call, results);
    } else {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: words(r) }] });
      messages.push(userTurn(r));
    }
  }
  const body: Obj = { model: 'claude-sonnet-4-5', max_tokens: 1 + int(r, 4000), messages };
  if (r() < 0.6) body.system = words(r);
  if (r() < 0.7) {
    body.tools = TOOLS.map((name) => ({
      name,
      description: `${name} tool`,
      input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    }));
    const choice = int(r, 4);
    if (choice === 1) body.tool_choice = { type: 'auto' };
    if (choice === 2) body.tool_choice = { type: 'any' };
    if (choice === 3) body.tool_choice = { type: 'tool', name: pick(r, TOOLS) };
  }
  if (r() < 0.5) body.temperature = Math.round(r() * 100) / 100;
  if (r() < 0.3) body.stop_sequences = [words(r)];
  if (r() < 0.3) body.stream = true;
  return body;
}

/** Beta bodies reduced to what both wires carry, spelled one way. */
function normalizeBeta(body: Obj): Obj {
  const sys = body.system;
  const system = typeof sys === 'string' ? [sys] : ((sys as Obj[] | undefined) ?? []).map((b) => b.text);
  const messages = (body.messages as Obj[]).map((m) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Obj[]);
    return {
      role: m.role,
      content: blocks.map((b) => {
        if (b.type !== 'tool_result') return b;
        const c = b.content;
        const text = typeof c === 'string' ? c : (c as Obj[]).map((p) => p.text).join('\n');
        return { type: 'tool_result', tool_use_id: b.tool_use_id, content: text };
      }),
    };
  });
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  return {
    system,
    messages,
    tools: body.tools ?? [],
    tool_choice: hasTools ? (body.tool_choice ?? { type: 'auto' }) : undefined,
    max_tokens: body.max_tokens,
    temperature: body.temperature,
    stop_sequences: body.stop_sequences,
    stream: body.stream === true,
  };
}

function requestRoundTrip(beta: Obj): Obj {
  const ir1 = decodeBetaMessages(beta).ir;
  const alpha = JSON.parse(JSON.stringify(toOpenAIChatBody(ir1).body));
  const ir2 = decodeAlphaChat(alpha).ir;
  return JSON.parse(JSON.stringify(toAnthropicBody(ir2).body));
}

function generateResponse(seed: number): ChatResponse {
  const r = seeded(seed * 7919);
  const content: Block[] = [];
  if (r() < 0.7) content.push({ type: 'text', text: words(r) });
  const calls = int(r, 3);
  for (let i = 0; i < calls; i++)
    content.push({ type: 'tool_use', id: `toolu_${seed}_${i}`, name: pick(r, TOOLS), input: args(r) });
  if (content.length === 0) content.push({ type: 'text', text: words(r) });
  const stopReason = calls > 0 ? 'tool_use' : pick(r, ['end_turn', 'max_tokens', 'stop_sequence'] as const);
  return {
    id: `msg_${seed}`,
    model: 'claude-sonnet-4-5',
    content,
    stopReason,
    stopSequence: stopReason === 'stop_sequence' ? 'END' : null,
    usage: { input: 1 + int(r, 500), output: 1 + int(r, 500) },
  };
}

/** The IR events a decoder would produce for a response, text cut in uneven pieces. */
function eventsOf(res: ChatResponse, r: Rand): StreamEvent[] {
  const ev: StreamEvent[] = [{ type: 'start', id: res.id, model: res.model, usage: { input: res.usage.input } }];
  res.content.forEach((b, index) => {
    if (b.type === 'text') {
      ev.push({ type: 'block_start', index, block: { type: 'text' } });
      for (let i = 0; i < b.text.length; ) {
        const n = 1 + int(r, 6);
        ev.push({ type: 'text_delta', index, text: b.text.slice(i, i + n) });
        i += n;
      }
    } else if (b.type === 'tool_use') {
      ev.push({ type: 'block_start', index, block: { type: 'tool_use', id: b.id, name: b.name } });
      const json = JSON.stringify(b.input);
      for (let i = 0; i < json.length; ) {
        const n = 1 + int(r, 9);
        ev.push({ type: 'tool_args_delta', index, partialJson: json.slice(i, i + n) });
        i += n;
      }
    }
    ev.push({ type: 'block_stop', index });
  });
  ev.push({ type: 'stop', stopReason: res.stopReason, stopSequence: res.stopSequence ?? null });
  ev.push({ type: 'usage', usage: { output: res.usage.output } });
  return ev;
}

/** Folds IR stream events back into response content. */
function collect(events: StreamEvent[]): Block[] {
  const blocks: Block[] = [];
  const json = new Map<number, string>();
  for (const e of events) {
    if (e.type === 'block_start' && e.block.type === 'text') blocks[e.index] = { type: 'text', text: '' };
    if (e.type === 'block_start' && e.block.type === 'tool_use')
      blocks[e.index] = { type: 'tool_use', id: e.block.id, name: e.block.name, input: {} };
    if (e.type === 'text_delta') (blocks[e.index] as { text: string }).text += e.text;
    if (e.type === 'tool_args_delta') json.set(e.index, (json.get(e.index) ?? '') + e.partialJson);
  }
  for (const [i, j] of json) (blocks[i] as { input: unknown }).input = JSON.parse(j);
  return blocks.filter((b) => b !== undefined);
}

const SEEDS = 150;
const alphaOpts = { id: 'chatcmpl-x', model: 'claude-sonnet-4-5', created: 1 };

describe('alpha <-> beta lossless round trips', () => {
  it('beta request -> IR -> alpha -> IR -> beta keeps text, tools, tool results and images', () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const beta = generateBeta(seed);
      let back: Obj;
      try {
        back = requestRoundTrip(beta);
      } catch (err) {
        assert.fail(`seed ${seed}: ${(err as Error).message}\n${JSON.stringify(beta)}`);
      }
      assert.deepEqual(normalizeBeta(back), normalizeBeta(beta), `seed ${seed}: ${JSON.stringify(beta)}`);
    }
  });

  it('response IR -> beta message -> IR -> alpha equals IR -> alpha', () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const ir = generateResponse(seed);
      const beta = JSON.parse(JSON.stringify(encodeBetaMessage(ir, { id: ir.id, model: ir.model })));
      const back = fromAnthropicResponse(beta);
      assert.deepEqual(
        encodeAlphaChat(back, alphaOpts),
        encodeAlphaChat(ir, alphaOpts),
        `seed ${seed}: ${JSON.stringify(ir)}`,
      );
    }
  });

  it('IR stream -> beta SSE (valid event sequence) -> IR keeps content, stop reason and usage', () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const ir = generateResponse(seed);
      const enc = newBetaStreamEncoder({ id: ir.id, model: ir.model });
      const sse = [...eventsOf(ir, seeded(seed)).flatMap((e) => enc.push(e)), ...enc.end()].join('');
      const summary = validateEventSequence(sse);
      assert.equal(summary.stopReason, ir.stopReason, `seed ${seed}`);
      assert.equal(summary.outputTokens, ir.usage.output, `seed ${seed}`);
      const state = newAnthropicStreamState();
      const decoded = [
        ...parseSse(sse).flatMap((rec) =>
          anthropicStreamStep(state, { event: rec.event ?? undefined, data: JSON.stringify(rec.data) }),
        ),
        ...anthropicStreamEnd(state),
      ];
      assert.deepEqual(collect(decoded), ir.content, `seed ${seed}: ${sse}`);
      const stop = decoded.find((e) => e.type === 'stop');
      assert.equal(stop?.type === 'stop' && stop.stopReason, ir.stopReason, `seed ${seed}`);
    }
  });
});
