// Fixture helpers for the colocated adapter tests (not imported by product code).
import { readFileSync } from 'node:fs';
import type { StreamEvent } from '../../ir/types.ts';
import type { StreamDecoder, UpstreamEvent } from '../types.ts';

export function fixtureText(dir: string, name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, `file://${dir}/`), 'utf8');
}

export function fixtureJson(dir: string, name: string): unknown {
  return JSON.parse(fixtureText(dir, name));
}

/** `*.chunks.txt`: one recorded stream record per line. */
export function fixtureLines(dir: string, name: string): string[] {
  return fixtureText(dir, name)
    .split('\n')
    .filter((l) => l.trim() !== '');
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
