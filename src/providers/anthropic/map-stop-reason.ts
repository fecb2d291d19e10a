// Anthropic stop_reason -> IR stop reason; the raw value travels alongside in `rawStopReason`.
import type { StopReason } from '../../ir/types.ts';

export function mapStopReason(raw: string | null | undefined): StopReason {
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
      // end_turn, pause_turn (server tool loop paused: the turn is over for this call), unknown values.
      return 'end_turn';
  }
}
