// CPU time a process spent (user + system, from /proc/<pid>/stat). Divided by the requests it
// served, it gives a per-request cost that a busy shared machine disturbs far less than latency.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSec: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`), the unit of /proc CPU times. */
export function clockTicks(): number {
  if (ticksPerSec === undefined) {
    try {
      ticksPerSec = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSec = 100;
    }
  }
  return ticksPerSec;
}

/** utime + stime in ticks from the text of /proc/<pid>/stat; the command name may contain spaces. */
export function parseStatTicks(stat: string): number | undefined {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(rest[11]);
  const system = Number(rest[12]);
  return Number.isFinite(user) && Number.isFinite(system) ? user + system : undefined;
}

/** CPU milliseconds used so far by the process, or undefined when /proc is not readable. */
export function cpuMs(pid: number): number | undefined {
  try {
    const ticks = parseStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return ticks === undefined ? undefined : (ticks * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}
