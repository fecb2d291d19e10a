// Shapes of a validated Messages request and of the Message the fake answers with.
import type { Json } from './util.ts';

/** A request block after validation; fields stay as sent (the fake only reads what it needs). */
export type InBlock = Json & { type: string };

export interface InMessage {
  role: 'user' | 'assistant';
  content: InBlock[];
}

export interface InTool {
  name: string;
  /** Custom tools only; server tools (`type: web_search_...`) are never called by the fake. */
  custom: boolean;
  input_schema?: Json;
  raw: Json;
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system: InBlock[];
  messages: InMessage[];
  tools: InTool[];
  thinking: boolean;
  stop_sequences: string[];
  stream: boolean;
}

/** The API leaves `citations` out of a text block that has none (a null breaks strict clients). */
export interface TextOut {
  type: 'text';
  text: string;
}
export interface ThinkingOut {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export interface ToolUseOut {
  type: 'tool_use';
  id: string;
  name: string;
  input: Json;
  /** Who called the tool: the model itself here (server tools are not emulated). */
  caller: { type: 'direct' };
}
export type OutBlock = TextOut | ThinkingOut | ToolUseOut;

export interface Usage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  service_tier: 'standard';
  inference_geo: 'not_available';
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

export interface MessageOut {
  model: string;
  id: string;
  type: 'message';
  role: 'assistant';
  content: OutBlock[];
  stop_reason: StopReason;
  stop_sequence: string | null;
  /** Set only for refusals, which the emulation never gives. */
  stop_details: null;
  usage: Usage;
}
