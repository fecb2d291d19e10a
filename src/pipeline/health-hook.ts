// Feeds the candidate health tracker (circuit breaker, latency ranking) from each finished call's
// attempts. Samples are applied after the answer, so the next call sees them and this one never waits.
import { countsAgainstCredential, countsAgainstHealth, type HealthTracker } from '../routing/health.ts';
import type { AfterResponseHook } from './hooks.ts';

export function healthHook(health: HealthTracker): AfterResponseHook {
  return (record) => {
    for (const s of record.healthSamples) {
      if (s.ref) {
        if (s.ok) health.record(s.ref, true, s.latencyMs);
        else if (countsAgainstHealth(s.status, s.kind)) health.record(s.ref, false, s.latencyMs);
      }
      if (s.credentialId !== undefined) {
        if (s.ok) health.credentials.success(s.credentialId);
        else if (countsAgainstCredential(s.status, s.kind)) health.credentials.failure(s.credentialId);
      }
    }
  };
}
