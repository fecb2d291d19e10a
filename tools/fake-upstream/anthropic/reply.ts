// Builds the deterministic Message the fake answers with (shared by /v1/messages, batches and Bedrock).
import { countTokens, replyText, type Script } from '../script.ts';
import { signThinking, thinkingText } from './thinking.ts';
import { blockText, type CacheResult } from './tokens.ts';
import type { MessageOut, MessagesRequest, OutBlock, StopReason, ToolUseOut } from './types.ts';
import { randomId, toolInput } from './util.ts';

/** Text of the last user turn; a turn holding only tool results answers with their content. */
export function lastUserText(req: MessagesRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m.role !== 'user') continue;
    const texts = m.content.filter((b) => b.type === 'text').map(blockText);
    if (texts.length) return texts.join('\n');
    return m.content
      .filter((b) => b.type === 'tool_result')
      .map(blockText)
      .join('\n');
  }
  return '';
}

function answersTools(req: MessagesRequest): boolean {
  const last = req.messages[req.messages.length - 1];
  return last.role === 'user' && last.content.some((b) => b.type === 'tool_result');
}

function toolCalls(req: MessagesRequest, script: Script, text: string): ToolUseOut[] {
  if (script.toolCalls === 0 || answersTools(req)) return [];
  const custom = req.tools.filter((t) => t.custom);
  return custom.slice(0, script.toolCalls).map((t) => ({
    type: 'tool_use' as const,
    id: randomId('toolu_01'),
    name: t.name,
    input: toolInput(t.input_schema, text),
    caller: { type: 'direct' as const },
  }));
}

/** Earliest stop sequence found in the text, and the text cut before it. */
function applyStop(text: string, stops: string[]): { text: string; stop: string | null } {
  let at = -1;
  let which: string | null = null;
  for (const s of stops) {
    if (s.length === 0) continue;
    const i = text.indexOf(s);
    if (i !== -1 && (at === -1 || i < at)) {
      at = i;
      which = s;
    }
  }
  return at === -1 ? { text, stop: null } : { text: text.slice(0, at), stop: which };
}

export function buildMessage(
  req: MessagesRequest,
  script: Script,
  cache: CacheResult,
  id = randomId('msg_01'),
): MessageOut {
  const userText = lastUserText(req);
  const content: OutBlock[] = [];
  let output = 0;
  if (req.thinking || script.thinking) {
    const thinking = thinkingText(userText);
    content.push({ type: 'thinking', thinking, signature: signThinking(thinking) });
    output += countTokens(thinking);
  }
  const calls = toolCalls(req, script, userText);
  for (const c of calls) output += countTokens(JSON.stringify(c.input));
  let stopReason: StopReason = calls.length ? 'tool_use' : 'end_turn';
  let stopSequence: string | null = null;
  if (calls.length === 0) {
    const stopped = applyStop(replyText(script, userText), req.stop_sequences);
    let text = stopped.text;
    if (stopped.stop !== null) {
      stopReason = 'stop_sequence';
      stopSequence = stopped.stop;
    }
    const room = Math.max(0, req.max_tokens - output);
    if (countTokens(text) > room) {
      text = text.slice(0, room * 4);
      stopReason = 'max_tokens';
      stopSequence = null;
    }
    if (text.length > 0) content.push({ type: 'text', text });
    output += countTokens(text);
  }
  content.push(...calls);
  // Key order as the API sends it (model first, usage last), so raw dumps read like recordings.
  return {
    model: req.model,
    id,
    type: 'message',
    role: 'assistant',
    content,
    stop_reason: stopReason,
    stop_sequence: stopSequence,
    stop_details: null,
    usage: {
      input_tokens: cache.input,
      cache_creation_input_tokens: cache.write,
      cache_read_input_tokens: cache.read,
      cache_creation: {
        ephemeral_5m_input_tokens: cache.write - cache.write1h,
        ephemeral_1h_input_tokens: cache.write1h,
      },
      output_tokens: output,
      service_tier: 'standard',
      inference_geo: 'not_available',
    },
  };
}
