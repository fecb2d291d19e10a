// The stop reasons of the messages wire (Anthropic's, and the beta family's own) as the IR's. One
// reading for both places that meet them: the anthropic adapter decoding an answer or a stream, and
// the beta family relaying a same-family stream, so a call's record says the same whichever path
// served it. The raw value travels alongside where the IR keeps it (`rawStopReason`).
import type { StopReason } from './types.ts';

export function messagesStopReason(raw: string | null | undefined): StopReason {
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
      // end_turn, pause_turn (a server tool loop paused: the turn is over for this call), values
      // added later.
      return 'end_turn';
  }
}
