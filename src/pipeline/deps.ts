// What a pipeline flow is given: the live state it reads and the hooks features registered.
import type { Deadlines } from '../providers/http.ts';
import type { PipelineHooks } from './hooks.ts';
import type { LiveState } from './types.ts';

export interface PipelineDeps {
  live: LiveState;
  /** Upstream deadlines of whole answers and of streams, built once (`pipelineDeadlines`). */
  deadlines: { answer: Deadlines; stream: Deadlines };
  hooks: PipelineHooks;
  /** Where a failing afterResponse hook is reported. */
  onHookError(err: unknown): void;
}

/** A whole answer arrives in one piece once the upstream is done, so one deadline bounds both phases. */
export function pipelineDeadlines(upstreamMs: number, streamIdleMs: number): PipelineDeps['deadlines'] {
  return {
    answer: { headersMs: upstreamMs, idleMs: upstreamMs },
    stream: { headersMs: upstreamMs, idleMs: streamIdleMs },
  };
}
