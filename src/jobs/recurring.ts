// Periodic housekeeping as jobs: one run per period across all instances sharing the database.
// Each period's job has its own idempotency key (the period number), so instances that start
// during one period enqueue it once between them, and the run schedules the next period's job.
// A run repeated (after a restart) must be harmless: sweeps delete what is old, nothing else.
import type { JobRunner } from './runner.ts';

export function runEvery(runner: JobRunner, kind: string, everyMs: number, task: () => Promise<void>): Promise<void> {
  const keyFor = (at: number) => `${kind}:${Math.floor(at / everyMs)}`;
  runner.register(kind, async () => {
    await task();
    const next = (Math.floor(Date.now() / everyMs) + 1) * everyMs;
    await runner.enqueue({ kind, payload: null, runAt: next, idempotencyKey: keyFor(next) });
  });
  return runner.enqueue({ kind, payload: null, idempotencyKey: keyFor(Date.now()) }).then(() => undefined);
}
