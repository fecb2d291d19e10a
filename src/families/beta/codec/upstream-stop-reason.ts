// A messages-API upstream's stop_reason as the IR's stop reason, for the same-family stream relay:
// the same reading the anthropic adapter's decoder gives a whole answer, so a call's record says the
// same whether the answer was streamed or not.
import type { StopReason } from '../../../ir/types.ts';

export function upstreamStopReason(raw: string | undefined): StopReason {
  switch (raw) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'tool_use':
      return 'tool_use';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, pause_turn and values added later: the turn is over for this call.
      return 'end_turn';
  }
}
