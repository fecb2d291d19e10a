// A cache hit is replayed as responseEvents -> the caller family's stream encoder. The official SDKs
// parse that SSE here, so "a replayed answer looks like a live one" is judged by the clients themselves.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { alphaCodec } from '../../src/families/alpha/codec.ts';
import { betaCodec } from '../../src/families/beta/codec.ts';
import type { FamilyCodec } from '../../src/families/shared/codec.ts';
import { responseEvents } from '../../src/ir/stream-replay.ts';
import type { ChatResponse, ToolUseBlock } from '../../src/ir/types.ts';
import { ANSWER_SAMPLES } from '../helpers/ir-samples.ts';

const ids = { requestId: 'req_01replay', created: 1_700_000_000, model: 'gw-model' };

// Every sample but two the SDKs cannot show as sent: an alpha answer without text reads as content
// null, and a beta thinking block without a signature comes back with signature ''.
const samples = Object.fromEntries(
  Object.entries(ANSWER_SAMPLES).filter(([name]) => name !== 'empty answer' && name !== 'thinking without signature'),
);

function replaySse(codec: FamilyCodec, res: ChatResponse, includeUsage: boolean): string {
  const enc = codec.streamEncoder(ids, includeUsage);
  const records = responseEvents(res).flatMap((ev) => enc.push(ev));
  return [...records, ...enc.end()].join('');
}

/** Serves the replayed SSE as the whole HTTP answer, so the SDK runs its real request and parse path. */
function sseFetch(body: string): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const text = (res: ChatResponse): string => res.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
const toolCalls = (res: ChatResponse): ToolUseBlock[] => res.content.filter((b) => b.type === 'tool_use');

const FINISH = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;

describe('replayed answers through the openai SDK (family alpha)', () => {
  for (const [name, res] of Object.entries(samples)) {
    for (const includeUsage of [true, false]) {
      test(`${name}${includeUsage ? ', with usage' : ''}`, async () => {
        const client = new OpenAI({
          apiKey: 'k',
          maxRetries: 0,
          fetch: sseFetch(replaySse(alphaCodec, res, includeUsage)),
        });
        const stream = client.chat.completions.stream({
          model: 'gw-model',
          messages: [{ role: 'user', content: 'q' }],
          ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
        });
        const final = await stream.finalChatCompletion();
        assert.equal(final.id, 'chatcmpl-01replay');
        assert.equal(final.model, 'gw-model');
        const choice = final.choices[0];
        assert.equal(choice.finish_reason, FINISH[res.stopReason as keyof typeof FINISH]);
        assert.equal(choice.message.content, text(res));
        assert.deepEqual(
          (choice.message.tool_calls ?? []).map((c) =>
            c.type === 'function' ? { id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) } : c,
          ),
          toolCalls(res).map((b) => ({ id: b.id, name: b.name, input: b.input })),
        );
        if (includeUsage) {
          const u = res.usage;
          const prompt = u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
          assert.equal(final.usage?.prompt_tokens, prompt);
          assert.equal(final.usage?.completion_tokens, u.output);
          assert.equal(final.usage?.prompt_tokens_details?.cached_tokens, u.cacheRead);
        } else {
          assert.equal(final.usage, undefined);
        }
      });
    }
  }
});

describe('replayed answers through the @anthropic-ai/sdk (family beta)', () => {
  for (const [name, res] of Object.entries(samples)) {
    test(name, async () => {
      const client = new Anthropic({ apiKey: 'k', maxRetries: 0, fetch: sseFetch(replaySse(betaCodec, res, false)) });
      const stream = client.messages.stream({
        model: 'gw-model',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'q' }],
      });
      const final = await stream.finalMessage();
      assert.equal(final.id, 'msg_01replay');
      assert.equal(final.model, 'gw-model');
      assert.equal(final.stop_reason, res.stopReason);
      assert.equal(final.stop_sequence, res.stopSequence ?? null);
      assert.deepEqual(
        final.content.map((b) => {
          if (b.type === 'text') return { type: 'text', text: b.text };
          if (b.type === 'thinking') return { type: 'thinking', thinking: b.thinking, signature: b.signature };
          if (b.type === 'redacted_thinking') return { type: 'redacted_thinking', data: b.data };
          if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
          return { type: b.type };
        }),
        res.content,
      );
      assert.equal(final.usage.input_tokens, res.usage.input);
      assert.equal(final.usage.output_tokens, res.usage.output);
      assert.equal(final.usage.cache_read_input_tokens ?? undefined, res.usage.cacheRead);
      assert.equal(final.usage.cache_creation_input_tokens ?? undefined, res.usage.cacheWrite);
    });
  }
});
