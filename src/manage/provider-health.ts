// Rolling-window health of a provider credential, computed from request-log samples.
import type { LatencySample } from '../store/request-logs.ts';

export const WINDOWS = [
  { window: '5m', ms: 5 * 60_000 },
  { window: '1h', ms: 60 * 60_000 },
  { window: '24h', ms: 24 * 60 * 60_000 },
] as const;

export interface WindowStats {
  window: '5m' | '1h' | '24h';
  requests: number;
  success_rate: number | null;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  p99_latency_ms: number | null;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null;
}

export function windowStats(samples: readonly LatencySample[], now: number): WindowStats[] {
  return WINDOWS.map(({ window, ms }) => {
    const since = new Date(now - ms).toISOString();
    const inWindow = samples.filter((s) => s.createdAt >= since);
    const latencies = inWindow.map((s) => s.latencyMs).sort((a, b) => a - b);
    const ok = inWindow.filter((s) => s.statusCode < 500 && s.statusCode !== 429).length;
    return {
      window,
      requests: inWindow.length,
      success_rate: inWindow.length === 0 ? null : ok / inWindow.length,
      p50_latency_ms: percentile(latencies, 50),
      p95_latency_ms: percentile(latencies, 95),
      p99_latency_ms: percentile(latencies, 99),
    };
  });
}

export type HealthState = 'unknown' | 'healthy' | 'degraded' | 'unhealthy';

/**
 * Health summary shown on the credential itself: state from the last 5 minutes (the last hour when
 * those were quiet; unknown with no call at all), p50 from the last hour.
 */
export function healthSummary(
  samples: readonly LatencySample[],
  now: number,
  fallbackCheckAt: string,
): { state: HealthState; p50_latency_ms: number | null; last_check_at: string } {
  const [w5m, w1h] = windowStats(samples, now);
  const rate = w5m?.success_rate ?? w1h?.success_rate ?? null;
  const state: HealthState =
    rate === null ? 'unknown' : rate >= 0.9 ? 'healthy' : rate >= 0.5 ? 'degraded' : 'unhealthy';
  let last = fallbackCheckAt;
  for (const s of samples) if (s.createdAt > last) last = s.createdAt;
  return { state, p50_latency_ms: w1h?.p50_latency_ms ?? null, last_check_at: last };
}
