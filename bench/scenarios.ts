// The scenarios of issue 7: each pairs a direct-to-fake request with the same work sent through
// the gateway (and, for 1-2, through the peer), so results are differences and ratios. The floor
// (issue 32) is sent the direct request at its own origin and relays it to the fake unchanged.
import { ADMIN_KEY } from './gateway.ts';
import type { RequestSpec } from './load/types.ts';

export type Target = 'direct' | 'floor' | 'gateway' | 'peer';
/** c1: latency at one connection; c32: throughput; ttfb: time to first body byte at one connection. */
export type Measure = 'c1' | 'c32' | 'ttfb';

export interface Scenario {
  id: string;
  title: string;
  measures: Measure[];
  /** Whether the peer gateway runs this scenario too. */
  peer: boolean;
  direct(fakeUrl: string): RequestSpec;
  gateway(gatewayUrl: string): RequestSpec;
  peerSpec?(peerUrl: string, headers: Record<string, string>): RequestSpec;
}

// 20 content deltas per stream: `chunks-20` is scripted in tools/fake-upstream (openai and anthropic).
const PROMPT = 'Benchmark prompt: say something short about switchyards and trains.';
const messages = [{ role: 'user', content: PROMPT }];
const gw = { authorization: `Bearer ${ADMIN_KEY}` };
const openaiKey = { authorization: 'Bearer sk-bench' };
const anthropicKey = { 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' };

function spec(url: string, headers: Record<string, string>, body: unknown): RequestSpec {
  return { url, headers, body: JSON.stringify(body) };
}

const chat = (model: string, stream: boolean) => ({ model, messages, ...(stream ? { stream: true } : {}) });
const messagesBody = (model: string, stream: boolean) => ({ ...chat(model, stream), max_tokens: 256 });

export const SCENARIOS: Scenario[] = [
  {
    id: 'passthrough',
    title: '1. pass-through chat, non-stream',
    measures: ['c1', 'c32'],
    peer: true,
    direct: (f) => spec(`${f}/openai/v1/chat/completions`, openaiKey, chat('gpt-4o-mini', false)),
    gateway: (g) => spec(`${g}/alpha/v1/chat/completions`, gw, chat('openai/gpt-4o-mini', false)),
    peerSpec: (p, h) => spec(`${p}/v1/chat/completions`, h, chat('gpt-4o-mini', false)),
  },
  {
    id: 'passthrough-stream',
    title: '2. pass-through chat, stream (20 chunks)',
    // c1 times the whole stream, which issue 32 compares with the floor as well as the first byte
    measures: ['c1', 'ttfb', 'c32'],
    peer: true,
    direct: (f) => spec(`${f}/openai/v1/chat/completions`, openaiKey, chat('gpt-4o-mini-chunks-20', true)),
    gateway: (g) => spec(`${g}/alpha/v1/chat/completions`, gw, chat('openai/gpt-4o-mini-chunks-20', true)),
    peerSpec: (p, h) => spec(`${p}/v1/chat/completions`, h, chat('gpt-4o-mini-chunks-20', true)),
  },
  {
    id: 'translated',
    title: '3. translated alpha -> anthropic, non-stream',
    measures: ['c1', 'c32'],
    peer: false,
    direct: (f) => spec(`${f}/anthropic/v1/messages`, anthropicKey, messagesBody('claude-3-5-haiku-latest', false)),
    gateway: (g) => spec(`${g}/alpha/v1/chat/completions`, gw, chat('anthropic/claude-3-5-haiku-latest', false)),
  },
  {
    id: 'translated-stream',
    title: '3. translated alpha -> anthropic, stream (20 chunks)',
    measures: ['ttfb', 'c32'],
    peer: false,
    direct: (f) =>
      spec(`${f}/anthropic/v1/messages`, anthropicKey, messagesBody('claude-3-5-haiku-latest-chunks-20', true)),
    gateway: (g) =>
      spec(`${g}/alpha/v1/chat/completions`, gw, chat('anthropic/claude-3-5-haiku-latest-chunks-20', true)),
  },
  {
    id: 'beta-to-openai-stream',
    title: '4. translated beta -> openai, stream (20 chunks)',
    measures: ['ttfb', 'c32'],
    peer: false,
    direct: (f) => spec(`${f}/openai/v1/chat/completions`, openaiKey, chat('gpt-4o-mini-chunks-20', true)),
    gateway: (g) => spec(`${g}/beta/v1/messages`, gw, messagesBody('openai/gpt-4o-mini-chunks-20', true)),
  },
  {
    id: 'embeddings',
    title: '5. embeddings pass-through',
    measures: ['c1', 'c32'],
    peer: false,
    direct: (f) => spec(`${f}/openai/v1/embeddings`, openaiKey, { model: 'text-embedding-3-small', input: PROMPT }),
    gateway: (g) => spec(`${g}/alpha/v1/embeddings`, gw, { model: 'openai/text-embedding-3-small', input: PROMPT }),
  },
];

/** The scenario whose gateway request is replayed for the streaming soak (RSS flatness). */
export const SOAK_SCENARIO = 'passthrough-stream';
