// Pure parts of bench/gc.ts: V8's `--trace-gc-nvp` lines summed per isolate, and a process's CPU
// split between its main thread and the rest (V8's helper threads, the log worker, libuv's pool).
import { readdirSync, readFileSync } from 'node:fs';
import { parseStatTicks } from './cpu.ts';

export interface IsolateGc {
  scavenges: number;
  /** Full collections (mark-compact), whose marking runs mostly on helper threads. */
  fullGcs: number;
  /** Bytes allocated in the young generation, summed over the scavenges' `allocated=`. */
  allocated: number;
  /** Bytes a scavenge kept in the young generation (`new_space_survived=`). */
  survived: number;
  /** Bytes a scavenge moved to the old generation (`promoted=`): what later full collections must mark. */
  promoted: number;
}

const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: (.*)$/;

function field(rest: string, name: string): number {
  const m = new RegExp(`(?:^| )${name}=(\\d+)`).exec(rest);
  return m ? Number(m[1]) : 0;
}

/** Every isolate's collections in `text` (one process's stdout under --trace-gc-nvp), by isolate address. */
export function parseNvp(text: string): Map<string, IsolateGc> {
  const out = new Map<string, IsolateGc>();
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const [, isolate, rest] = m;
    const kind = /(?:^| )gc=(\w+)/.exec(rest)?.[1];
    if (kind === undefined) continue;
    let g = out.get(isolate);
    if (g === undefined) {
      g = { scavenges: 0, fullGcs: 0, allocated: 0, survived: 0, promoted: 0 };
      out.set(isolate, g);
    }
    if (kind === 's') {
      g.scavenges++;
      g.allocated += field(rest, 'allocated');
      g.survived += field(rest, 'new_space_survived');
      g.promoted += field(rest, 'promoted');
    } else if (kind === 'mc') g.fullGcs++;
  }
  return out;
}

/** The isolate that allocated the most: the main thread's, on a proxy under load (the log worker's is the other). */
export function busiestIsolate(byIsolate: Map<string, IsolateGc>): IsolateGc | undefined {
  let best: IsolateGc | undefined;
  for (const g of byIsolate.values()) if (best === undefined || g.allocated > best.allocated) best = g;
  return best;
}

/** CPU ticks of each thread of `pid`, by thread id (the main thread's id is the pid). */
export function threadTicks(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const ticks = parseStatTicks(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      if (ticks !== undefined) out.set(Number(tid), ticks);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** Ticks between two readings, the main thread's and all the others' together. */
export function splitTicks(
  pid: number,
  before: Map<number, number>,
  after: Map<number, number>,
): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const [tid, t] of after) {
    const d = t - (before.get(tid) ?? 0);
    if (tid === pid) main += d;
    else others += d;
  }
  return { main, others };
}
