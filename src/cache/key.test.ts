import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAlphaChat } from '../families/alpha/codec/decode-request.ts';
import { decodeBetaMessages } from '../families/beta/codec/decode-request.ts';
import type { ChatRequest, Message } from '../ir/types.ts';
import { exactKey, fingerprint, partitionKey, promptText, tokenBucket } from './key.ts';

// The same request in both wire shapes: they differ in everything the key must ignore (stream, user,
// key order of the tool schema, max_tokens, the order of stop sequences).
const alphaBody = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'lookup',
        description: 'Look a fact up.',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    },
  ],
  tool_choice: 'auto',
  temperature: 0.2,
  top_p: 0.9,
  max_tokens: 1000,
  stop: ['END', 'STOP'],
  stream: true,
  stream_options: { include_usage: true },
  user: 'alice',
};

const betaBody = {
  model: 'claude-sonnet-4-5',
  system: 'You are terse.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] }],
  tools: [
    {
      name: 'lookup',
      description: 'Look a fact up.',
      input_schema: { required: ['q'], properties: { q: { type: 'string' } }, type: 'object' },
    },
  ],
  tool_choice: { type: 'auto' },
  temperature: 0.2,
  top_p: 0.9,
  max_tokens: 1010,
  stop_sequences: ['STOP', 'END'],
  metadata: { user_id: 'bob' },
};

const alpha = (over: Record<string, unknown> = {}): ChatRequest => decodeAlphaChat({ ...alphaBody, ...over }).ir;
const beta = (over: Record<string, unknown> = {}): ChatRequest => decodeBetaMessages({ ...betaBody, ...over }).ir;

describe('keys computed on the IR are shared by both families', () => {
  it('gives the same fingerprint, exact key, partition and prompt text', () => {
    const a = alpha();
    const b = beta();
    assert.equal(fingerprint(a), fingerprint(b));
    assert.match(fingerprint(a), /^[0-9a-f]{64}$/);
    // The model as requested is the caller's: both callers asked for the same alias here.
    assert.equal(exactKey('proj_1', 'openai/gpt-4o', a), exactKey('proj_1', 'openai/gpt-4o', b));
    assert.equal(partitionKey('proj_1', 'openai/gpt-4o', a), partitionKey('proj_1', 'openai/gpt-4o', b));
    assert.equal(promptText(a), 'What is the capital of France?');
    assert.equal(promptText(a), promptText(b));
  });

  it('matches a tool loop although each upstream minted its own tool-call ids', () => {
    const a = alpha({
      messages: [
        ...alphaBody.messages,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_9xk', type: 'function', function: { name: 'lookup', arguments: '{"q":"France"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_9xk', content: 'Paris' },
      ],
    });
    const betaToolTurn = (result: string) =>
      beta({
        messages: [
          ...betaBody.messages,
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_01A', name: 'lookup', input: { q: 'France' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: result }] },
        ],
      });
    const b = betaToolTurn('Paris');
    assert.equal(exactKey('proj_1', 'gpt-4o', a), exactKey('proj_1', 'gpt-4o', b));
    const other = betaToolTurn('Lyon');
    assert.notEqual(exactKey('proj_1', 'gpt-4o', a), exactKey('proj_1', 'gpt-4o', other));
  });
});

describe('fingerprint', () => {
  it('ignores key order inside tool schemas and response-format schemas', () => {
    const schema1 = { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'] }, b: { type: 'number' } } };
    const schema2 = { properties: { b: { type: 'number' }, a: { enum: ['x', 'y'], type: 'string' } }, type: 'object' };
    const rf = (schema: object) => ({ type: 'json_schema', json_schema: { name: 'out', schema } });
    assert.equal(
      fingerprint(alpha({ response_format: rf(schema1) })),
      fingerprint(alpha({ response_format: rf(schema2) })),
    );
    assert.notEqual(fingerprint(alpha({ response_format: rf(schema1) })), fingerprint(alpha()));
  });

  it('changes with anything that changes the answer', () => {
    const base = fingerprint(alpha());
    const changed: Array<Record<string, unknown>> = [
      { temperature: 0.3 },
      { top_p: 0.5 },
      { seed: 7 },
      { stop: ['END'] },
      { tool_choice: 'required' },
      { parallel_tool_calls: false },
      { messages: [{ role: 'system', content: 'You are verbose.' }, alphaBody.messages[1]] },
      { tools: [{ ...alphaBody.tools[0], function: { ...alphaBody.tools[0].function, description: 'Other.' } }] },
      { response_format: { type: 'json_object' } },
      { presence_penalty: 0.5 },
      { frequency_penalty: 0.5 },
      { logit_bias: { '50256': -100 } },
    ];
    for (const over of changed) assert.notEqual(fingerprint(alpha(over)), base, JSON.stringify(over));
    assert.notEqual(fingerprint(beta({ top_k: 40 })), fingerprint(beta()));
    assert.notEqual(
      fingerprint(beta({ thinking: { type: 'enabled', budget_tokens: 2048 } })),
      fingerprint(beta({ thinking: { type: 'enabled', budget_tokens: 4096 } })),
    );
    assert.notEqual(fingerprint(alpha(), { n: 2 }), base);
    assert.notEqual(fingerprint(alpha(), { logprobs: true }), base);
  });

  it('ignores stream, user, metadata and the conversation itself', () => {
    const base = fingerprint(alpha());
    assert.equal(fingerprint(alpha({ stream: false, user: 'carol', metadata: { a: 'b' } })), base);
    assert.equal(
      fingerprint(alpha({ messages: [{ role: 'user', content: 'Something else entirely' }, alphaBody.messages[0]] })),
      base,
    );
    assert.equal(fingerprint(alpha(), {}), base);
  });

  it('leaves max_tokens out: fitsMaxTokens decides at hit time whether a stored answer fits', () => {
    const base = fingerprint(alpha());
    for (const over of [{ max_tokens: 10 }, { max_tokens: undefined }, { max_completion_tokens: 513 }]) {
      assert.equal(fingerprint(alpha(over)), base, JSON.stringify(over));
    }
    // The usual SDK calls: an alpha call without a limit and a beta call that must send one.
    assert.equal(fingerprint(alpha({ max_tokens: undefined })), fingerprint(beta({ max_tokens: 4096 })));
    assert.equal(exactKey('t', 'm', alpha({ max_tokens: undefined })), exactKey('t', 'm', beta({ max_tokens: 64 })));
  });

  it('buckets thinking budgets by powers of two', () => {
    assert.deepEqual([1, 2, 3, 1000, 1024, 1025, 4096].map(tokenBucket), [1, 2, 4, 1024, 1024, 2048, 4096]);
    assert.equal(tokenBucket(undefined), null);
  });
});

describe('exactKey', () => {
  it('separates tenants, requested models and conversations', () => {
    const req = alpha();
    const key = exactKey('proj_1', 'gpt-4o', req);
    assert.notEqual(exactKey('proj_2', 'gpt-4o', req), key);
    assert.notEqual(exactKey('proj_1:alice', 'gpt-4o', req), key);
    assert.notEqual(exactKey('proj_1', '@support-bot', req), key);
    assert.notEqual(
      exactKey('proj_1', 'gpt-4o', alpha({ messages: [{ role: 'user', content: 'Capital of Spain?' }] })),
      key,
    );
    // The resolved upstream model is not part of it: an @slug may route anywhere.
    assert.equal(exactKey('proj_1', 'gpt-4o', { ...req, model: 'gpt-4o-2024-08-06' }), key);
  });

  it('cannot be forged by moving text between parts', () => {
    const req = alpha();
    assert.notEqual(exactKey('a', 'bc', req), exactKey('ab', 'c', req));
  });

  it('keeps message roles and cache hints apart as it should', () => {
    const user: Message = { role: 'user', content: [{ type: 'text', text: 'hi' }] };
    const hinted: Message = {
      role: 'user',
      content: [{ type: 'text', text: 'hi', cacheControl: { type: 'ephemeral' } }],
    };
    const req = (messages: Message[]): ChatRequest => ({ ...alpha(), messages });
    assert.equal(exactKey('t', 'm', req([user])), exactKey('t', 'm', req([hinted])));
    assert.notEqual(exactKey('t', 'm', req([user])), exactKey('t', 'm', req([{ ...user, role: 'assistant' }])));
  });
});

describe('promptText', () => {
  it('marks turns once there is more than one', () => {
    const req = alpha({
      messages: [
        { role: 'system', content: 'Sys' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Capital' },
            { type: 'text', text: 'of France?' },
          ],
        },
      ],
    });
    assert.equal(promptText(req), 'user: Hi\n\nassistant: Hello!\n\nuser: Capital\nof France?');
  });
});
