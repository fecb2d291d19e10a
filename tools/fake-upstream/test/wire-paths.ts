// Key paths of vendor bodies, so the emulation's answers can be held against real recorded ones:
// `usage.prompt_tokens_details.cached_tokens`, `content[text].text` (array items named by their
// `type` when they have one, else `[]`), streams prefixed with their event type.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/** The recordings live beside the checkout (`../shared`), never copied into the repository. */
export const RECORDED = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  'shared',
  'recorded-wire',
);

export function recorded(file: string): Buffer {
  return readFileSync(join(RECORDED, file));
}

/** Tool arguments hold the caller's own keys, not the vendor's. */
const OPAQUE = new Set(['input', 'args']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function addPaths(value: unknown, prefix: string, out: Set<string>): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) {
      const tag = isRecord(item) && typeof item.type === 'string' ? item.type : '';
      addPaths(item, `${prefix}[${tag}]`, out);
    }
  } else if (isRecord(value)) {
    // A content block start or delta is named by its type too, as array items are.
    const tagged = (k: string, v: unknown) =>
      (k === 'content_block' || k === 'delta') && isRecord(v) && typeof v.type === 'string' ? `${k}<${v.type}>` : k;
    for (const [k, v] of Object.entries(value)) {
      const path = prefix ? `${prefix}.${tagged(k, v)}` : tagged(k, v);
      out.add(path);
      if (!OPAQUE.has(k)) addPaths(v, path, out);
    }
  }
  return out;
}

export function jsonPaths(...bodies: unknown[]): Set<string> {
  const out = new Set<string>();
  for (const b of bodies) addPaths(b, '', out);
  return out;
}

/** `data:` payloads of an SSE body (CRLF or LF framing), `[DONE]` left out. */
export function sseData(text: string): unknown[] {
  const out: unknown[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .join('\n');
    if (data && data !== '[DONE]') out.push(JSON.parse(data));
  }
  return out;
}

/** Paths of stream events, each prefixed with its kind (`kind` reads it off the event). */
export function eventPaths(events: unknown[], kind: (e: unknown) => string): Set<string> {
  const out = new Set<string>();
  for (const e of events) addPaths(e, kind(e), out);
  return out;
}

export const anthropicKind = (e: unknown): string => (isRecord(e) && typeof e.type === 'string' ? e.type : '?');
export const chunkKind = (): string => 'chunk';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** Bedrock eventstream frames as `{ [eventType]: payload }`, the shape the AWS SDKs hand out. */
export function eventstreamEvents(bytes: Uint8Array): unknown[] {
  const out: unknown[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
    const message = codec.decode(bytes.subarray(at, at + length));
    const type = message.headers[':event-type']?.value ?? message.headers[':exception-type']?.value;
    out.push({ [String(type)]: JSON.parse(toUtf8(message.body)) });
    at += length;
  }
  return out;
}

export const bedrockKind = (e: unknown): string => (isRecord(e) ? (Object.keys(e)[0] ?? '?') : '?');

/** Emulated paths the recordings lack and recorded paths the emulation lacks, minus the reasoned exceptions. */
export function pathDiff(
  emulated: Set<string>,
  real: Set<string>,
  allow: { extra?: Record<string, string>; missing?: Record<string, string> } = {},
): { extra: string[]; missing: string[] } {
  const extra = [...emulated].filter((p) => !real.has(p) && allow.extra?.[p] === undefined).sort();
  const missing = [...real].filter((p) => !emulated.has(p) && allow.missing?.[p] === undefined).sort();
  return { extra, missing };
}
