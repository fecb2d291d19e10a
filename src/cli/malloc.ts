// The C heap's share of a gateway's memory. Node's buffers, the log worker's SQLite and V8's helper
// threads allocate through glibc malloc, which gives each allocating thread an arena of its own (up
// to eight per core) and keeps what they free for reuse. After a burst of calls those arenas held
// 10-15 MB a gateway at rest did not need, and nothing in JavaScript can hand it back.
// native/malloc, an optional addon, reaches the glibc calls that can: bin/switchyard.js applies its
// settings before the CLI loads, and `serve` releases memory when idle (cli/idle-heap.ts). Without
// the addon, or off glibc, everything here does nothing.
import { createRequire } from 'node:module';

interface MallocAddon {
  tuneForGateway(): boolean;
  trim(): boolean;
}

function load(): MallocAddon | null {
  try {
    const addon: unknown = createRequire(import.meta.url)('switchyard-malloc');
    if (typeof addon !== 'object' || addon === null) return null;
    const { tuneForGateway, trim } = addon as Record<string, unknown>;
    if (typeof tuneForGateway !== 'function' || typeof trim !== 'function') return null;
    return addon as MallocAddon;
  } catch {
    return null;
  }
}

export interface MallocTuning {
  /** Whether the addon loaded on glibc and took the settings; false means nothing was changed. */
  readonly native: boolean;
  /** Gives the arenas' free memory back to the kernel; for a quiet moment (it walks every arena). */
  release(): void;
}

/** The addon's settings (bin/switchyard.js applied them already when it found the addon; again is harmless). */
export function tuneMalloc(): MallocTuning {
  const addon = load();
  if (addon === null || !addon.tuneForGateway()) return { native: false, release: () => {} };
  return { native: true, release: () => void addon.trim() };
}
