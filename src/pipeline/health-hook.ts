// Feeds the candidate health tracker (circuit breaker, latency ranking) from each finished call's
// attempts. Samples are applied after the answer, so the next call sees them and this one never waits.
// In scale-out mode the samples of every instance are applied everywhere, so the breaker and the
// latency ranking see the whole cluster's traffic.
import { countsAgainstCredential, countsAgainstHealth, type HealthTracker } from '../routing/health.ts';
import type { AfterResponseHook } from './hooks.ts';
import type { HealthSample } from './types.ts';

/** Applies one attempt's sample: this instance's own, or one another instance shared. */
export function applyHealthSample(health: HealthTracker, s: HealthSample): void {
  if (s.ref) {
    if (s.ok) health.record(s.ref, true, s.latencyMs);
    else if (countsAgainstHealth(s.status, s.kind)) health.record(s.ref, false, s.latencyMs);
  }
  if (s.credentialId !== undefined) {
    if (s.ok) health.credentials.success(s.credentialId);
    else if (countsAgainstCredential(s.status, s.kind)) health.credentials.failure(s.credentialId);
  }
}

/** `share` also hands each sample to the other instances (scale-out mode). */
export function healthHook(health: HealthTracker, share?: (s: HealthSample) => void): AfterResponseHook {
  return (record) => {
    for (const s of record.healthSamples) {
      applyHealthSample(health, s);
      share?.(s);
    }
  };
}
