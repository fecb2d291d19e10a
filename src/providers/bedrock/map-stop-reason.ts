import type { StopReason } from '../../ir/types.ts';

export function mapConverseStopReason(raw: string | undefined): StopReason {
  switch (raw) {
    case 'end_turn':
      return 'end_turn';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'error';
    default:
      return 'end_turn';
  }
}
