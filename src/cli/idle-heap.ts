// Gives memory back once the gateway goes quiet. Start-up and every burst of calls grow V8's young
// generation up to its cap (two 8 MB semi-spaces, young-generation.ts), and V8 shrinks it only in a
// collection that sees a low allocation rate, which an idle process never runs: the gateway sat at
// ~15-30 MB more than it needed for as long as no call came. A full collection after a whole quiet period lets V8 shrink
// it (and compact the old generation); under load nothing is done, so throughput is not touched.
// The same quiet ticks hand the C heap's free memory back (cli/malloc.ts).
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { youngBytes } from './young-generation.ts';

/**
 * How often the event loop's busy share is read (the check costs microseconds). V8 judges the
 * allocation rate over its last ~5 s of collections: a collection sooner after the burst keeps the
 * young generation's size, so a period shorter than that only spends collections.
 */
const PERIOD_MS = 5_000;
/** Busier than this over a period is not idle (an idle gateway's timers use ~0.1%). */
const IDLE_UTILIZATION = 0.02;
/** A young generation at or below this is already small; collecting would gain nothing. */
const SMALL_YOUNG_BYTES = 4 * 1024 * 1024;
/** V8 may need a second quiet collection to see a low allocation rate; past this it stops trying. */
const MAX_TRIES_PER_QUIET = 3;

function exposedGc(): () => void {
  const existing: unknown = Reflect.get(globalThis, 'gc');
  if (typeof existing === 'function') return () => Reflect.apply(existing, globalThis, []);
  // The flag only adds `gc` to contexts made after it is set, such as this one.
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('V8 did not expose gc()');
  return () => Reflect.apply(gc, undefined, []);
}

/**
 * Starts the watch; the returned function stops it. The timer never keeps the process alive.
 * `releaseNative` (cli/malloc.ts) runs at the first quiet tick and at the tick after each collection,
 * which frees the buffers whose memory it hands back.
 */
export function trimHeapWhenIdle(releaseNative: () => void = () => {}): () => void {
  let gc: () => void;
  try {
    gc = exposedGc();
  } catch {
    // A runtime that will not expose a collector only keeps its young generation: not worth failing start for.
    return () => {};
  }
  let last = performance.eventLoopUtilization();
  let tries = 0;
  let releases = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (busy > IDLE_UTILIZATION) {
      tries = 0;
      releases = 0;
      return;
    }
    // At the start of a tick, so it also hands back what the last tick's collection freed: V8 frees
    // array buffers' memory on a helper thread after the collection returns.
    if (releases < MAX_TRIES_PER_QUIET + 1) {
      releases++;
      releaseNative();
      last = performance.eventLoopUtilization();
    }
    if (tries >= MAX_TRIES_PER_QUIET || youngBytes() <= SMALL_YOUNG_BYTES) return;
    tries++;
    // The first collection of a quiet spell also compacts the old generation, giving back the pages
    // that start-up or the last burst left half empty (~5 MB at rest). It takes ~100 ms instead of
    // ~30, paid only by a gateway that has had nothing to do for a while.
    if (tries === 1) setFlagsFromString('--compact-on-every-full-gc');
    gc();
    if (tries === 1) setFlagsFromString('--no-compact-on-every-full-gc');
    // The collection itself is busy time; it must not count against the next period.
    last = performance.eventLoopUtilization();
  }, PERIOD_MS);
  timer.unref();
  return () => clearInterval(timer);
}
