// Caps V8's young generation while the gateway serves. Under load V8 doubles it, two semi-spaces at a
// time, up to 2 x 16 MB: the largest single part of the gateway's peak memory. Its maximum can only be
// given when the process starts (`--max-semi-space-size`), which `switchyard serve` does not control;
// the growth factor, though, is read each time V8 grows the space, so the space grows by doubling
// while a doubling stays within the cap, and then not at all. After every collection the factor
// follows the size: when V8 (or cli/idle-heap.ts) shrinks the space in a quiet spell, it may grow back
// towards the cap once load returns; from an odd size (2 x 1.25 MB, say) it ends between half the cap
// and the cap.
// V8 12 and later (Node 22+) still add one page per growth at a factor of 1, so there the space creeps
// slowly past the cap under load (Node 24: 8 -> 9.75 MB in the test's run); it stays far below the
// uncapped 64 MB, and the idle trim gives it back.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, type HeapSpaceInfo, setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/**
 * Both semi-spaces together (each is half of it), half of V8's maximum: at c=32 this measured ~10 MB
 * less at the peak for ~1.5% more time collecting per call (issue 32).
 */
export const YOUNG_CAP_BYTES = 16 * 1024 * 1024;
/** V8's own factor, restored below the cap. */
const GROWTH_FACTOR = 2;

const newSpace = (): HeapSpaceInfo | undefined => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');

/** The memory the young generation holds now, both semi-spaces (cli/idle-heap.ts reads it too). */
export const youngBytes = (): number => newSpace()?.space_size ?? 0;

/**
 * The size the young generation grows from. After five seconds without allocation V8 gives one
 * semi-space's memory back, so youngBytes() reads half, yet the next scavenge takes it back and the
 * next growth doubles the whole: read as the size, half would let the space double past the cap.
 * Used plus available is one semi-space's room for objects, its page headers (under 2%) short of it.
 */
function youngCapacity(): number {
  const space = newSpace();
  if (space === undefined) return 0;
  return Math.max(space.space_size, 2 * (space.space_used_size + space.space_available_size));
}

/**
 * The growth factor for a young generation that grows from `capacity` under `limit`: V8's doubling
 * while it stays within the limit, none once it would pass it. The factor is a whole number, so no
 * factor lands a space of an odd size on the limit; it stops short of it instead.
 */
export const growthFactor = (capacity: number, limit: number): number =>
  capacity * GROWTH_FACTOR > limit ? 1 : GROWTH_FACTOR;

/** The flags given to node for this process (NODE_OPTIONS and the command line): the operator's, which win. */
export function nodeFlagsGiven(): string {
  return `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
}

export interface YoungGenerationCap {
  /** Start-up is over: the whole cap applies from now on. */
  started(): void;
}

/** Starts the cap, at half of it until `started()`. */
export function capYoungGeneration(capBytes = YOUNG_CAP_BYTES): YoungGenerationCap {
  // A young-generation size given to node wins over the cap.
  if (/semi-space-size|semi-space-growth-factor/.test(nodeFlagsGiven())) return { started() {} };
  // While the gateway starts, the request-log writer's thread is set up, and with it V8 (Node 20)
  // puts the growth factor back to its default until the next collection is seen here: at half the
  // cap, the one doubling that can slip through lands on the cap.
  let limit = capBytes / 2;
  /** The factor is 1: one more doubling would pass the limit. */
  let capped = false;
  /** Worker threads made but not yet online: each one's heap set-up puts the factor back to 2 (Node 20). */
  let workersStarting = 0;
  // Setting a flag is not free (running code slows for a while after each set: setting it at every
  // collection cost ~10% of throughput), so it is set when the size crosses the cap, and at every
  // collection only while a worker thread is starting.
  const wouldPass = (): boolean => growthFactor(youngCapacity(), limit) === 1;
  const setFactor = (): void => {
    capped = wouldPass();
    setFlagsFromString(`--semi-space-growth-factor=${capped ? 1 : GROWTH_FACTOR}`);
  };
  const follow = (): void => {
    if (workersStarting > 0 || wouldPass() !== capped) setFactor();
  };
  // A collection is where V8 grows the space; the entries come shortly after it, before the next
  // one could grow it again (that takes as many bytes surviving as the space holds).
  new PerformanceObserver(follow).observe({ entryTypes: ['gc'] });
  process.on('worker', (worker: Worker) => {
    workersStarting++;
    let starting = true;
    // A worker that fails before it is online only exits.
    const settled = (): void => {
      if (!starting) return;
      starting = false;
      workersStarting--;
      setFactor();
    };
    worker.once('online', settled);
    worker.once('exit', settled);
  });
  follow();
  return {
    started() {
      limit = capBytes;
      setFactor();
    },
  };
}
