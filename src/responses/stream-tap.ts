// Reads a Responses API event stream as it passes through, without changing a byte: the response
// id (from `response.created`, so the gateway can record who owns it before the caller sees it) and
// the terminal response with its usage (from `response.completed`, `.incomplete` or `.failed`).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { isRecord } from '../util/json.ts';
import { Utf8Stream } from '../util/utf8-stream.ts';

export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'incomplete', 'failed', 'cancelled']);

export interface ResponseSummary {
  id: string;
  status: string;
  usage: unknown;
  model: string | undefined;
}

/** A response object's id, status, model and usage; undefined when it is not one. */
export function summarize(obj: unknown): ResponseSummary | undefined {
  if (!isRecord(obj) || typeof obj.id !== 'string' || obj.id === '') return undefined;
  return {
    id: obj.id,
    status: typeof obj.status === 'string' ? obj.status : 'unknown',
    usage: obj.usage,
    model: typeof obj.model === 'string' ? obj.model : undefined,
  };
}

export class ResponseStreamTap {
  /** Set by the first event that names the response. */
  first: ResponseSummary | undefined;
  /** The latest state seen; terminal once the stream reported the end. */
  last: ResponseSummary | undefined;
  readonly #decoder = new Utf8Stream();
  readonly #parser = createParser({ onEvent: (e) => this.#onEvent(e) });

  /** Feeds the next bytes; returns true when this chunk revealed the response id for the first time. */
  push(chunk: Uint8Array): boolean {
    const known = this.first !== undefined;
    this.#parser.feed(this.#decoder.write(chunk));
    return !known && this.first !== undefined;
  }

  get terminal(): boolean {
    return this.last !== undefined && TERMINAL_STATUSES.has(this.last.status);
  }

  #onEvent(e: EventSourceMessage): void {
    if (e.data === '' || e.data === '[DONE]') return;
    let body: unknown;
    try {
      body = JSON.parse(e.data);
    } catch {
      return;
    }
    if (!isRecord(body)) return;
    const s = summarize(body.response);
    if (s === undefined) return;
    this.first ??= s;
    this.last = s;
  }
}
