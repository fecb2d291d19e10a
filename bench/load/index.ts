// Picks the load generator: wrk (Debian's package) when on PATH, autocannon otherwise.
import { execFileSync } from 'node:child_process';
import { autocannonGenerator } from './autocannon.ts';
import type { LoadGenerator } from './types.ts';
import { wrkGenerator } from './wrk.ts';

export function findWrk(): string | undefined {
  try {
    const out = execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim();
    return out === '' ? undefined : out;
  } catch {
    return undefined;
  }
}

export function pickGenerator(prefer: 'auto' | 'wrk' | 'autocannon'): LoadGenerator {
  if (prefer === 'autocannon') return autocannonGenerator();
  const wrk = findWrk();
  if (wrk) return wrkGenerator(wrk);
  if (prefer === 'wrk')
    throw new Error('wrk is not on PATH (apt-get install -y wrk), drop --loadgen wrk to use autocannon');
  return autocannonGenerator();
}
