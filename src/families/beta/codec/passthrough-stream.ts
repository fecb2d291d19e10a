// The relay of a messages-wire upstream's stream to a beta caller: every event goes out as the
// upstream's own bytes. Text deltas are scanned for their text; only the few events that carry usage,
// the stop reason or an error (message_start, message_delta, error, anything unknown) are parsed.

import { messagesStopReason } from '../../../ir/messages-stop-reason.ts';
import type { StreamSummary } from '../../../ir/outcome.ts';
import { isRecord } from '../../../util/json.ts';
import type { PassthroughStream } from '../../shared/codec.ts';
import { scanMembers, stringAt, stringMember } from '../../shared/json-scan.ts';
import { sseRecord, upstreamStreamError } from '../../shared/passthrough.ts';

const TEXT = ['text'] as const;

/** Events that carry neither usage nor a stop reason nor text. */
const PLAIN = new Set(['ping', 'content_block_start', 'content_block_stop', 'message_stop']);

export class BetaPassthroughStream implements PassthroughStream {
  readonly #summary: StreamSummary;

  /** Scan results, reused from event to event. */
  readonly #at = [-1];
  readonly #count = [0];

  constructor(summary: StreamSummary) {
    this.#summary = summary;
  }

  /**
   * `event` is absent for records whose framing has no event name (Bedrock's frames): the type is
   * then read from the payload, whose first `type` member is the event's own in every vendor's output.
   */
  push(event: string | undefined, data: string): string {
    const type = event ?? stringMember(data, 'type');
    if (type === 'content_block_delta') {
      // Only a text delta has a `text` member (thinking, JSON and citation deltas name theirs otherwise).
      scanMembers(data, TEXT, this.#at, this.#count);
      if (this.#at[0] >= 0) this.#summary.text += stringAt(data, this.#at[0]) ?? '';
      return sseRecord(type, data);
    }
    if (type !== undefined && PLAIN.has(type)) return sseRecord(type, data);
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return '';
    }
    if (!isRecord(parsed)) return '';
    const name = event ?? (typeof parsed.type === 'string' ? parsed.type : 'unknown');
    this.#observe(typeof parsed.type === 'string' ? parsed.type : name, parsed);
    return sseRecord(name, data);
  }

  end(): string {
    return '';
  }

  #observe(type: string, ev: Record<string, unknown>): void {
    const summary = this.#summary;
    const u = type === 'message_start' && isRecord(ev.message) ? ev.message.usage : ev.usage;
    if (isRecord(u)) {
      if (typeof u.input_tokens === 'number') summary.usage.input = u.input_tokens;
      if (typeof u.output_tokens === 'number') summary.usage.output = u.output_tokens;
      if (typeof u.cache_read_input_tokens === 'number') summary.usage.cacheRead = u.cache_read_input_tokens;
      if (typeof u.cache_creation_input_tokens === 'number') summary.usage.cacheWrite = u.cache_creation_input_tokens;
    }
    if (type === 'message_delta' && isRecord(ev.delta) && typeof ev.delta.stop_reason === 'string') {
      summary.stopReason = messagesStopReason(ev.delta.stop_reason);
    }
    if (type === 'error' && isRecord(ev.error)) summary.error = upstreamStreamError(ev.error);
  }
}
