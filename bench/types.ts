// Records a bench run produces; the JSON file in bench/results/ is exactly a RunResult.
import type { Measure, Target } from './scenarios.ts';

export interface Measurement {
  scenario: string;
  target: Target;
  measure: Measure;
  requests: number;
  /** Requests per second (c32 only; 0 otherwise). */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses >= 400 plus socket errors. */
  failures: number;
  /** CPU time the serving process (gateway, floor, peer, or the fake for direct runs) spent per request. */
  cpuUsPerReq?: number;
  /** Highest RSS of the gateway or peer during this run (c32 runs). */
  rssPeakMb?: number;
}

export interface RssFigures {
  idleMb: number;
  /** Highest sample while a c=32 run went through this process. */
  peakC32Mb: number;
  /** Medians of the first and last few seconds of the soak (where a GC cycle happens to be). */
  soakStartMb: number;
  soakEndMb: number;
  /** Lowest sample in the first and last third of the soak: the floor after a collection, the leak signal. */
  soakStartFloorMb: number;
  soakEndFloorMb: number;
  soakSec: number;
  soakRequests: number;
  soakFailures: number;
  /**
   * Median of the last seconds of REST_SEC without calls after the soak: what an idle gateway holds
   * once `serve` has given back what the load grew (src/cli/idle-heap.ts). Absent in older results.
   */
  restMb?: number;
}

export interface RunResult {
  date: string;
  machine: { cores: number; node: string; cpu: string; loadgen: string };
  /** floor: whether the bare proxy ran (absent in results written before issue 32). */
  options: { durationSec: number; warmupSec: number; soakSec: number; peer: string | null; floor?: boolean };
  peer: { name: string; version: string } | null;
  measurements: Measurement[];
  rss: {
    gateway: RssFigures;
    peerPeakC32Mb: number | null;
    /** Every gateway sample of the run as [ms since the gateway was up, MB], to tell GC saw-teeth from a leak. */
    gatewayTimeline: Array<[number, number]>;
  };
}
