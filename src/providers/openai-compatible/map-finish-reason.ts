// finish_reason -> IR stop reason. Together says `eos` where OpenAI says `stop`.
import type { StopReason } from '../../ir/types.ts';

export function mapFinishReason(raw: string | null | undefined, hasToolCalls: boolean): StopReason {
  switch (raw) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'content_filter';
    default:
      // Some OpenAI-compatible hosts answer `stop`/`eos` even when the turn ended in tool calls.
      return hasToolCalls ? 'tool_use' : 'end_turn';
  }
}
