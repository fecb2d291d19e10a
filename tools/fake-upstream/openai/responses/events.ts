// The Responses SSE event sequence for a finished response (pure): live streams and `?stream=true` replays share it.
import { chunkText } from '../../script.ts';
import { isRecord, type Json, str } from '../util.ts';

export interface EventOptions {
  background: boolean;
  /** Cut the stream after a few events with an `error` event (scripted midstream-error). */
  midstreamError: boolean;
  long: boolean;
}

const TERMINAL: Record<string, string> = {
  completed: 'response.completed',
  incomplete: 'response.incomplete',
  failed: 'response.failed',
};

export function responseEvents(final: Json, opts: EventOptions): Json[] {
  const events: Json[] = [];
  const push = (type: string, data: Json) => events.push({ type, ...data, sequence_number: events.length });
  const pending = { ...final, output: [], usage: null, incomplete_details: null, error: null };
  if (opts.background) push('response.queued', { response: { ...pending, status: 'queued' } });
  push('response.created', { response: { ...pending, status: opts.background ? 'queued' : 'in_progress' } });
  push('response.in_progress', { response: { ...pending, status: 'in_progress' } });
  const output = Array.isArray(final.output) ? final.output.filter(isRecord) : [];
  output.forEach((item, output_index) => {
    const item_id = str(item.id) ?? '';
    if (item.type === 'function_call') {
      push('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      const args = str(item.arguments) ?? '';
      for (const delta of chunkText(args, 3))
        push('response.function_call_arguments.delta', { item_id, output_index, delta });
      push('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: args });
      push('response.output_item.done', { output_index, item });
      return;
    }
    const parts = Array.isArray(item.content) ? item.content.filter(isRecord) : [];
    push('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
    parts.forEach((part, content_index) => {
      const text = str(part.text) ?? '';
      const at = { item_id, output_index, content_index };
      push('response.content_part.added', { ...at, part: { ...part, text: '' } });
      for (const delta of chunkText(text, opts.long ? 24 : 5))
        push('response.output_text.delta', { ...at, delta, logprobs: [] });
      push('response.output_text.done', { ...at, text, logprobs: [] });
      push('response.content_part.done', { ...at, part });
    });
    push('response.output_item.done', { output_index, item });
  });
  if (opts.midstreamError) {
    events.length = Math.min(events.length, opts.background ? 6 : 5);
    push('error', {
      code: 'server_error',
      message: 'The server had an error while streaming (scripted midstream-error).',
      param: null,
    });
    return events;
  }
  push(TERMINAL[String(final.status)] ?? 'response.completed', { response: final });
  return events;
}
