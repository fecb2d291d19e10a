// Prefixed, lexically sortable ids. A monotonic factory keeps ids created in the same millisecond
// ordered, which cursor pagination (ordered by id) relies on.
import { createHash, randomFillSync } from 'node:crypto';
import { encodeRandom, encodeTime, monotonicFactory } from 'ulid';

// ulid's default Node PRNG calls crypto.randomBytes once per character (16 per id), which showed
// as ~4% of the gateway's CPU under load; one pooled fill serves 256 ids.
const pool = new Uint8Array(4096);
let offset = pool.length;

/** Uniform in [0, 1) on multiples of 1/32, so ulid's `floor(prng() * 32)` picks each character evenly. */
export function pooledPrng(): number {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return (pool[offset++] & 31) / 32;
}

const next = monotonicFactory(pooledPrng);

export type IdPrefix =
  | 'req'
  | 'job'
  | 'proj'
  | 'prov'
  | 'key'
  | 'org'
  | 'rc'
  | 'rcv'
  | 'whep'
  | 'whd'
  | 'evt'
  | 'ce'
  | 'batch'
  | 'msgbatch'
  | 'budget'
  | 'guardrail'
  | 'aud'
  | 'user'
  | 'sess'
  | 'mset'
  | 'mcp';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${next().toLowerCase()}`;
}

/**
 * The same id every time for the same time and seed, in the form newId gives (so it sorts by time
 * among them): for a record a crashed run may write again, which must land on the first one.
 */
export function idAt(prefix: IdPrefix, timeMs: number, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let i = 0;
  const prng = () => (digest[i++ % digest.length] & 31) / 32;
  return `${prefix}_${(encodeTime(timeMs, 10) + encodeRandom(16, prng)).toLowerCase()}`;
}
