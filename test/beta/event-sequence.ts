// Checks a raw family-beta SSE stream record by record against the Messages event grammar, so a
// translator that reorders, drops or mislabels an event fails with the exact position.

export interface SseRecord {
  /** Value of the `event:` line, or null when the record had none. */
  event: string | null;
  /** Parsed JSON of the `data:` line(s), or null when absent or not JSON. */
  data: Record<string, unknown> | null;
  raw: string;
}

export interface SequenceSummary {
  /** Event names in order (pings included). */
  events: string[];
  /** Block types in index order. */
  blocks: string[];
  stopReason: string | null;
  outputTokens: number;
  /** An `event: error` record ended the stream. */
  error: { type: string; message: string } | null;
}

/** Splits an SSE body into records (blank-line separated); comments are ignored. */
export function parseSse(body: string): SseRecord[] {
  const out: SseRecord[] = [];
  for (const chunk of body.replace(/\r\n/g, '\n').split(/\n\n+/)) {
    const lines = chunk.split('\n').filter((l) => l.length > 0 && !l.startsWith(':'));
    if (lines.length === 0) continue;
    let event: string | null = null;
    const data: string[] = [];
    for (const l of lines) {
      if (l.startsWith('event:')) event = l.slice(6).trim();
      else if (l.startsWith('data:')) data.push(l.slice(5).replace(/^ /, ''));
    }
    out.push({ event, data: parseData(data), raw: chunk });
  }
  return out;
}

function parseData(lines: string[]): Record<string, unknown> | null {
  if (lines.length === 0) return null;
  try {
    const v: unknown = JSON.parse(lines.join('\n'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

const DELTA_FOR: Record<string, string[]> = {
  text: ['text_delta', 'citations_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  redacted_thinking: [],
  tool_use: ['input_json_delta'],
  server_tool_use: ['input_json_delta'],
};

class SequenceError extends Error {}

/**
 * Validates the stream and returns a summary; throws with the offending record's position otherwise.
 * `allowError`: the stream may end with an `event: error` record instead of message_stop.
 */
export function validateEventSequence(body: string, opts: { allowError?: boolean } = {}): SequenceSummary {
  const records = parseSse(body);
  const fail = (i: number, why: string): never => {
    throw new SequenceError(`event #${i} (${records[i]?.event ?? 'end'}): ${why}\n--- stream ---\n${body}`);
  };
  const summary: SequenceSummary = { events: [], blocks: [], stopReason: null, outputTokens: 0, error: null };
  let open: { index: number; type: string; deltas: number } | null = null;
  let phase: 'start' | 'blocks' | 'delta' | 'done' = 'start';
  let sawNonThinking = false;
  records.forEach((r, i) => {
    if (r.event === null) fail(i, 'record without an event: line');
    if (r.data === null) fail(i, 'record without a JSON data: line');
    const d = r.data as Record<string, unknown>;
    if (d.type !== r.event) fail(i, `event name "${r.event}" disagrees with data.type "${String(d.type)}"`);
    summary.events.push(String(r.event));
    if (phase === 'done') fail(i, 'event after message_stop / error');
    if (r.event === 'ping') return;
    if (r.event === 'error') {
      if (!opts.allowError) fail(i, `unexpected error event ${JSON.stringify(d)}`);
      const e = obj(d.error);
      if (typeof e.type !== 'string' || typeof e.message !== 'string') fail(i, 'error event without type/message');
      summary.error = { type: String(e.type), message: String(e.message) };
      phase = 'done';
      return;
    }
    if (phase === 'start') {
      if (r.event !== 'message_start') fail(i, 'first event must be message_start');
      const m = obj(d.message);
      if (m.type !== 'message' || m.role !== 'assistant') fail(i, 'message_start.message must be an assistant message');
      if (!Array.isArray(m.content) || m.content.length !== 0) fail(i, 'message_start content must be empty');
      if (typeof obj(m.usage).input_tokens !== 'number') fail(i, 'message_start without usage.input_tokens');
      phase = 'blocks';
      return;
    }
    if (phase === 'blocks') {
      if (r.event === 'content_block_start') {
        if (open) fail(i, `block ${open.index} still open`);
        if (d.index !== summary.blocks.length) fail(i, `index ${String(d.index)} not contiguous`);
        const type = String(obj(d.content_block).type);
        if (!(type in DELTA_FOR)) fail(i, `unknown block type ${type}`);
        if (type === 'thinking' || type === 'redacted_thinking') {
          if (sawNonThinking) fail(i, 'thinking block after text/tool_use');
        } else sawNonThinking = true;
        summary.blocks.push(type);
        open = { index: summary.blocks.length - 1, type, deltas: 0 };
        return;
      }
      if (r.event === 'content_block_delta') {
        if (!open || d.index !== open.index) fail(i, 'delta outside its open block');
        const kind = String(obj(d.delta).type);
        const block = open as { type: string; deltas: number };
        if (!DELTA_FOR[block.type].includes(kind)) fail(i, `${kind} inside a ${block.type} block`);
        block.deltas++;
        return;
      }
      if (r.event === 'content_block_stop') {
        if (!open || d.index !== open.index) fail(i, 'stop for a block that is not open');
        open = null;
        return;
      }
      if (r.event === 'message_delta') {
        if (open) fail(i, `message_delta while block ${open.index} is open`);
        const delta = obj(d.delta);
        const usage = obj(d.usage);
        if (typeof delta.stop_reason !== 'string') fail(i, 'message_delta without stop_reason');
        if (typeof usage.output_tokens !== 'number') fail(i, 'message_delta without usage.output_tokens');
        summary.stopReason = String(delta.stop_reason);
        summary.outputTokens = Number(usage.output_tokens);
        phase = 'delta';
        return;
      }
      fail(i, 'unexpected event inside the block section');
    }
    if (phase === 'delta') {
      if (r.event !== 'message_stop') fail(i, 'message_delta must be followed by message_stop');
      phase = 'done';
    }
  });
  // `phase` is assigned inside the callback, which control-flow narrowing does not see.
  if ((phase as string) !== 'done') fail(records.length, 'stream ended without message_stop');
  if (!summary.error && summary.events[summary.events.length - 1] !== 'message_stop')
    fail(records.length - 1, 'message_stop is not last');
  return summary;
}
