// The one loader of the vendor folders' recorded fixtures (`<folder>/__fixtures__/`), and the checks
// every stream decoder test shares. Tests only; product code never reads fixtures.
import { readFileSync } from 'node:fs';
import type { StreamEvent } from '../../ir/types.ts';
import type { StreamDecoder, UpstreamEvent } from '../types.ts';

/** The vendor folders under src/providers that hold recorded fixtures. */
export type VendorFolder = 'anthropic' | 'bedrock' | 'gemini' | 'openai-compatible';

export function fixtureText(folder: VendorFolder, name: string): string {
  return readFileSync(new URL(`../${folder}/__fixtures__/${name}`, import.meta.url), 'utf8');
}

export function fixtureJson(folder: VendorFolder, name: string): unknown {
  return JSON.parse(fixtureText(folder, name));
}

/** `*.chunks.txt`: one recorded stream record per line (each folder's line format is its own). */
export function fixtureLines(folder: VendorFolder, name: string): string[] {
  return fixtureText(folder, name)
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/** Anthropic's recorded SSE (`event: <name>|<data JSON>` a line), which Bedrock's InvokeModel wraps too. */
export function anthropicSseFixture(name: string): UpstreamEvent[] {
  return fixtureLines('anthropic', name).map((line) => {
    const bar = line.indexOf('|');
    return { event: line.slice('event: '.length, bar), data: line.slice(bar + 1) };
  });
}

/** Feeds every record, then closes the stream, returning all IR events in order. */
export function replay(decoder: StreamDecoder, records: UpstreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const r of records) out.push(...decoder.push(r));
  out.push(...decoder.end());
  return out;
}

/** The IR rules every decoder must keep: contiguous indexes, one open block, one final stop or error. */
export function assertStreamInvariants(events: StreamEvent[]): void {
  let open: number | null = null;
  let next = 0;
  let terminal = 0;
  events.forEach((e, i) => {
    if (terminal > 0) throw new Error(`event after stop/error at ${i}`);
    if (e.type === 'block_start') {
      if (open !== null) throw new Error(`block ${e.index} started while ${open} open`);
      if (e.index !== next) throw new Error(`block index ${e.index}, expected ${next}`);
      open = e.index;
      next++;
    } else if (e.type === 'block_stop') {
      if (open !== e.index) throw new Error(`block_stop ${e.index} but open is ${open}`);
      open = null;
    } else if ('index' in e && e.index !== open) {
      throw new Error(`delta for ${e.index} but open is ${open}`);
    } else if (e.type === 'stop' || e.type === 'error') {
      terminal++;
    }
  });
  if (terminal !== 1) throw new Error(`expected exactly one stop/error, got ${terminal}`);
}
