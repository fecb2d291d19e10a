import type { StopReason } from '../../ir/types.ts';

/** Gemini has no tool-call finish reason: a normal STOP that produced function calls means tool_use. */
export function mapGeminiFinishReason(raw: string | undefined, sawFunctionCall: boolean): StopReason {
  switch (raw) {
    case 'STOP':
    case undefined:
      return sawFunctionCall ? 'tool_use' : 'end_turn';
    case 'MAX_TOKENS':
      return 'max_tokens';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return 'content_filter';
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'TOO_MANY_TOOL_CALLS':
      return 'error';
    default:
      return sawFunctionCall ? 'tool_use' : 'end_turn';
  }
}
