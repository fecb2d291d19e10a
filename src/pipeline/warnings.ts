// What the serving attempt's request encoder left out or changed reaches the caller as the
// `x-svc-warnings` header and the decision trace (stored in the log row, and in `svc:trace` on
// request). What SPEC drops silently is noted in the trace only.
import type { AttemptOutcome } from '../ir/outcome.ts';
import type { DecisionTrace } from '../routing/trace.ts';

export const WARNINGS_HEADER = 'x-svc-warnings';

export function noteWarnings(outcome: AttemptOutcome, trace: DecisionTrace, headers: Record<string, string>): void {
  if (!outcome.ok || outcome.warnings === undefined || outcome.warnings.length === 0) return;
  trace.warnings = [...(trace.warnings ?? []), ...outcome.warnings.map((w) => w.code)];
  const said = outcome.warnings.filter((w) => w.silent !== true).map((w) => w.code);
  if (said.length > 0) headers[WARNINGS_HEADER] = said.join(',');
}
