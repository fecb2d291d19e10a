// glibc allocator settings for the gateway, and the call that hands freed memory back
// (src/cli/malloc.ts says why the gateway wants them). `npm ci` builds the binding and skips this
// package when it cannot.
const binding = require('./build/Release/malloc.node');

// Two arenas for all threads: the gateway runs JavaScript on one thread and malloc is rarely on its
// path, so they see little contention (no throughput change measured at c=32).
const ARENA_MAX = 2;
// glibc starts at 128 KB and raises the threshold each time a large block is freed, after which
// large blocks (request bodies, socket reads) come from the arenas and stay there once freed. Held
// at 128 KB they are mapped and unmapped on their own.
const MMAP_THRESHOLD = 128 * 1024;

/**
 * Applies the settings; false off glibc (the binding's calls are no-ops there). Best called before
 * other threads allocate, since a thread keeps the arena it first allocated from; calling it again
 * sets the same values. glibc's own variables (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_), when set,
 * win: glibc applied them at start.
 */
function tuneForGateway(env = process.env) {
  return binding.tune(env.MALLOC_ARENA_MAX ? 0 : ARENA_MAX, env.MALLOC_MMAP_THRESHOLD_ ? 0 : MMAP_THRESHOLD);
}

module.exports = {
  tuneForGateway,
  /** Gives the arenas' free memory back to the kernel (malloc_trim(0): it walks every arena). */
  trim: () => binding.trim(),
};
