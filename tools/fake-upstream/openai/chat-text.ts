// Text views of a chat request: what the reply echoes and what the prompt token count is computed over.
import { isRecord, type Json, str } from './util.ts';

/** Text of a message `content`: a string, or the `text` of its text/refusal parts joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const p of content) {
    if (!isRecord(p)) continue;
    const t = str(p.text) ?? str(p.refusal);
    if (t !== undefined) parts.push(t);
  }
  return parts.join('\n');
}

/** Text of the last `user` message ('' when there is none). */
export function lastUserText(messages: Json[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') return contentText(messages[i].content);
  }
  return '';
}

/**
 * Everything the prompt token count covers: each message's text, plus tool-call names and arguments,
 * joined by newlines. `prompt_tokens = countTokens(promptText(messages))`, documented so tests can
 * compute the exact number.
 */
export function promptText(messages: Json[]): string {
  let out = '';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const piece = typeof m.content === 'string' ? m.content : contentText(m.content);
    out = i === 0 ? piece : `${out}\n${piece}`;
    if (Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls) {
        if (isRecord(c) && isRecord(c.function))
          out += `\n${str(c.function.name) ?? ''}${str(c.function.arguments) ?? ''}`;
      }
    }
  }
  return out;
}
