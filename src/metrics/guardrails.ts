// The guardrail verdict counter of /metrics: one series per (policy, check, action). Policy ids are
// bounded by what operators configure, checks are the six check types and actions the three the
// engine takes, so the label sets stay small. A series is resolved on its first verdict and kept.
import type { Metrics, Tally, TallySeries } from './registry.ts';

type Label = 'policy' | 'check' | 'action';

export class GuardrailVerdictCounter {
  readonly #tally: Tally<Label>;
  readonly #series = new Map<string, TallySeries<Label>>();

  constructor(metrics: Metrics) {
    this.#tally = metrics.tally<Label>({
      name: 'switchyard_guardrail_verdicts_total',
      help: 'Guardrail checks that fired, by policy id, check type and action (block, mask, flag; shadow policies too)',
      labelNames: ['policy', 'check', 'action'],
    });
  }

  /** One verdict of `check` (its type) in `policy` (its id). */
  count(policy: string, check: string, action: string): void {
    const key = `${policy}\u0000${check}\u0000${action}`;
    let s = this.#series.get(key);
    if (s === undefined) {
      s = this.#tally.series({ policy, check, action });
      this.#series.set(key, s);
    }
    s.inc();
  }
}
