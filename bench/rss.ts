// Samples a process's resident set size (VmRSS in /proc/<pid>/status) every 250 ms, so the run
// can read idle, peak-under-load and soak-start/end figures from one timeline.
import { readFileSync } from 'node:fs';

export interface RssSample {
  /** ms since the sampler started */
  t: number;
  mb: number;
}

export function parseVmRssMb(status: string): number | undefined {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) / 1024 : undefined;
}

export function readRssMb(pid: number): number | undefined {
  try {
    return parseVmRssMb(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

export class RssSampler {
  readonly samples: RssSample[] = [];
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 250,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  now(): number {
    return Date.now() - this.started;
  }

  sample(): number | undefined {
    const mb = readRssMb(this.pid);
    if (mb !== undefined) this.samples.push({ t: this.now(), mb });
    return mb;
  }

  /** Samples taken in [from, to). */
  between(from: number, to: number): number[] {
    return this.samples.filter((s) => s.t >= from && s.t < to).map((s) => s.mb);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
