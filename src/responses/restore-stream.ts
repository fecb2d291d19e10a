// Puts the originals a `restore: true` check masked back into a Responses event stream, for the
// caller only (the upstream's bytes, which the log and the record read, keep the placeholders). The
// upstream cuts text into delta events anywhere, so a placeholder may straddle two of them: each
// delta stream keeps back what may be the start of one until its next delta. Any other event sends
// what is kept first, unchanged, so the order of events is the upstream's.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { JsonValue } from '../ir/types.ts';
import type { PlaceholderRestore } from '../pipeline/guard.ts';
import { isRecord, mapJsonStrings } from '../util/json.ts';
import { Utf8Stream } from '../util/utf8-stream.ts';

/** Text kept back on one delta stream, and the last delta event of it, to carry the text if it must go as is. */
interface Held {
  text: string;
  event: Record<string, unknown>;
  name: string | undefined;
}

const encoder = new TextEncoder();

/** The deltas of one part of one output item: `response.output_text.delta` of item 3, part 0. */
function deltaStream(body: Record<string, unknown>): string {
  return `${body.type}\u0000${body.item_id}\u0000${body.output_index}\u0000${body.content_index}`;
}

export class RestoringStream {
  readonly #restore: PlaceholderRestore;
  readonly #decoder = new Utf8Stream();
  readonly #parser = createParser({ onEvent: (e) => this.#onEvent(e) });
  readonly #held = new Map<string, Held>();
  #out = '';

  constructor(restore: PlaceholderRestore) {
    this.#restore = restore;
  }

  /** The next upstream bytes in; what can go to the caller so far out (possibly nothing). */
  push(chunk: Uint8Array): Uint8Array {
    this.#parser.feed(this.#decoder.write(chunk));
    return this.#take();
  }

  /** The upstream ended: an unterminated last event and every text still kept back. */
  end(): Uint8Array {
    this.#parser.feed(this.#decoder.end());
    this.#parser.reset({ consume: true });
    this.#flush();
    return this.#take();
  }

  #take(): Uint8Array {
    const out = this.#out;
    this.#out = '';
    return encoder.encode(out);
  }

  #write(name: string | undefined, id: string | undefined, data: string): void {
    let out = name === undefined ? '' : `event: ${name}\n`;
    if (id !== undefined) out += `id: ${id}\n`;
    for (const line of data.split('\n')) out += `data: ${line}\n`;
    this.#out += `${out}\n`;
  }

  #flush(): void {
    for (const h of this.#held.values()) this.#write(h.name, undefined, JSON.stringify({ ...h.event, delta: h.text }));
    this.#held.clear();
  }

  #onEvent(e: EventSourceMessage): void {
    let body: unknown;
    try {
      body = e.data === '' || e.data === '[DONE]' ? undefined : JSON.parse(e.data);
    } catch {
      body = undefined;
    }
    if (
      isRecord(body) &&
      typeof body.type === 'string' &&
      body.type.endsWith('.delta') &&
      typeof body.delta === 'string'
    ) {
      const key = deltaStream(body);
      const text = (this.#held.get(key)?.text ?? '') + body.delta;
      const keep = this.#restore.hold(text);
      // Tool-call arguments are JSON text: an original goes in escaped, like the text around it.
      const inJson = body.type.includes('arguments');
      const event = { ...body, delta: this.#restore.text(text.slice(0, text.length - keep), inJson) };
      if (keep > 0) this.#held.set(key, { text: text.slice(text.length - keep), event, name: e.event });
      else this.#held.delete(key);
      this.#write(e.event, e.id, JSON.stringify(event));
      return;
    }
    this.#flush();
    this.#write(e.event, e.id, restoreJsonText(e.data, this.#restore));
  }
}

/**
 * One JSON text (a Responses answer, or a stream event that is not a delta) with the originals put
 * back. A string under `arguments` is itself JSON text (a tool call's arguments), so an original goes
 * into it escaped for that JSON and then again for the outer one; restoring over the whole text at
 * once escaped it only once, and a `"` in the original broke the arguments. Text with nothing to
 * restore goes out byte for byte.
 */
export function restoreJsonText(text: string, restore: PlaceholderRestore): string {
  if (restore.text(text, false) === text) return text;
  let value: JsonValue;
  try {
    value = JSON.parse(text);
  } catch {
    return restore.text(text, true);
  }
  return JSON.stringify(mapJsonStrings(value, (s, key) => restore.text(s, key === 'arguments')));
}
