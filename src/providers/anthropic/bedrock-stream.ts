// Bedrock invoke-with-response-stream: each `chunk` frame carries `{"bytes":"<base64>"}` holding one
// Anthropic stream event, so the frames are unwrapped and fed to the Anthropic state machine.
import type { StreamEvent } from '../../ir/types.ts';
import { asRecord, asString, tryParseJson } from '../../util/json.ts';
import { bedrockStreamException } from '../bedrock/decode-error.ts';
import type { StreamDecoder, UpstreamEvent } from '../types.ts';
import {
  type AnthropicStreamState,
  anthropicStreamEnd,
  anthropicStreamStep,
  newAnthropicStreamState,
} from './stream-decoder.ts';

export function bedrockAnthropicStep(s: AnthropicStreamState, ev: UpstreamEvent): StreamEvent[] {
  if (s.done) return [];
  if (ev.messageType === 'exception' || (ev.event !== undefined && /exception$/i.test(ev.event))) {
    s.done = true;
    return [{ type: 'error', error: bedrockStreamException(ev.event, ev.data) }];
  }
  const parsed = tryParseJson(ev.data);
  const frame = parsed.ok ? asRecord(parsed.value) : {};
  const bytes = asString(frame.bytes);
  if (bytes === undefined) return [];
  const inner = Buffer.from(bytes, 'base64').toString('utf8');
  return anthropicStreamStep(s, { data: inner });
}

export function newBedrockAnthropicStreamDecoder(): StreamDecoder {
  const state = newAnthropicStreamState();
  return { push: (ev) => bedrockAnthropicStep(state, ev), end: () => anthropicStreamEnd(state) };
}
