// IR stop reason -> messages-API stop_reason. The one place this table lives for family beta.
// content_filter becomes `refusal`, the messages API's own safety stop (wire-formats.md 3.5, newer
// translators); `error` becomes end_turn since the caller already received what was produced.
import type { StopReason } from '../../../ir/types.ts';

/** Native values the IR folds away; echoed when a messages-style upstream reported them. */
const NATIVE_ONLY = new Set(['pause_turn', 'refusal', 'model_context_window_exceeded']);

export function betaStopReason(stop: StopReason, raw?: string): string {
  if (raw !== undefined && NATIVE_ONLY.has(raw)) return raw;
  switch (stop) {
    case 'max_tokens':
    case 'stop_sequence':
    case 'tool_use':
      return stop;
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
