// IR stop reason -> chat-completions finish_reason. The one place this table lives for family alpha.
import type { StopReason } from '../../../ir/types.ts';

export type AlphaFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export function alphaFinishReason(stop: StopReason): AlphaFinishReason {
  switch (stop) {
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, and `error` (the caller already got the partial text; there is no
      // chat-completions value for "the upstream failed after answering").
      return 'stop';
  }
}
