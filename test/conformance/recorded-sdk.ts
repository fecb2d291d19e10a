// The two families' official SDKs as clients of the gateway, each call folded into the same neutral
// terms as recorded-oracle.ts. The SDKs assemble the answer themselves (the openai stream helper's
// final completion, the anthropic MessageStream's final message), so what is compared is what an
// application using them would get, not what a hand-written reader makes of the stream.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Said, SaidToolCall } from './recorded-oracle.ts';

export interface RecordedCall {
  model: string;
  stream: boolean;
  /** Declared so the model may call them; the recording decides what is called. */
  tools: string[];
  /** Ask for thinking (beta `thinking`), as the recorded request did. */
  thinking: boolean;
}

const PROMPT = 'Answer as you did when this was recorded.';
const OPEN_SCHEMA = { type: 'object' as const, properties: {}, additionalProperties: true };

export interface GatewayClientOptions {
  url: string;
  key: string;
}

function alphaFinish(reason: string | null | undefined): Said['finish'] {
  return reason === 'tool_calls' || reason === 'length' || reason === 'content_filter' ? reason : 'stop';
}

function alphaMessage(message: OpenAI.ChatCompletionMessage): Pick<Said, 'text' | 'toolCalls'> {
  const toolCalls: SaidToolCall[] = [];
  for (const c of message.tool_calls ?? []) {
    if (c.type === 'function')
      toolCalls.push({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) as unknown });
  }
  return { text: message.content ?? '', toolCalls };
}

/** Family alpha through the `openai` SDK at /alpha/v1. Thinking has no place on this wire. */
export async function callAlpha(gw: GatewayClientOptions, call: RecordedCall): Promise<Said> {
  const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
  const params = {
    model: call.model,
    max_completion_tokens: 2048,
    messages: [{ role: 'user' as const, content: PROMPT }],
    ...(call.tools.length > 0
      ? {
          tools: call.tools.map((name) => ({ type: 'function' as const, function: { name, parameters: OPEN_SCHEMA } })),
        }
      : {}),
  };
  const completion = call.stream
    ? await client.chat.completions
        .stream({ ...params, stream: true, stream_options: { include_usage: true } })
        .finalChatCompletion()
    : await client.chat.completions.create(params);
  const choice = completion.choices[0];
  return {
    ...alphaMessage(choice.message),
    thinking: '',
    signatures: [],
    finish: alphaFinish(choice.finish_reason),
    usage: { input: completion.usage?.prompt_tokens ?? -1, output: completion.usage?.completion_tokens ?? -1 },
  };
}

const BETA_FINISH: Record<string, Said['finish']> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

/** Family beta through the `@anthropic-ai/sdk` at /beta (the SDK appends /v1/messages). */
export async function callBeta(gw: GatewayClientOptions, call: RecordedCall): Promise<Said> {
  const client = new Anthropic({ apiKey: gw.key, baseURL: `${gw.url}/beta`, maxRetries: 0 });
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: call.model,
    max_tokens: 2048,
    messages: [{ role: 'user', content: PROMPT }],
    ...(call.tools.length > 0 ? { tools: call.tools.map((name) => ({ name, input_schema: OPEN_SCHEMA })) } : {}),
    ...(call.thinking ? { thinking: { type: 'enabled', budget_tokens: 1024 } } : {}),
  };
  const message = call.stream
    ? await client.messages.stream(params).finalMessage()
    : await client.messages.create(params);
  const said: Said = {
    text: '',
    thinking: '',
    signatures: [],
    toolCalls: [],
    finish: BETA_FINISH[message.stop_reason ?? ''] ?? 'stop',
    usage: { input: message.usage.input_tokens, output: message.usage.output_tokens },
  };
  for (const b of message.content) {
    if (b.type === 'text') said.text += b.text;
    if (b.type === 'thinking') {
      said.thinking += b.thinking;
      if (b.signature) said.signatures.push(b.signature);
    }
    if (b.type === 'tool_use') said.toolCalls.push({ id: b.id, name: b.name, input: b.input });
  }
  return said;
}
