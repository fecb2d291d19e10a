// What a pipeline flow is given: the live state it reads and the hooks features registered.
import type { Deadlines } from '../providers/http.ts';
import type { PipelineHooks } from './hooks.ts';
import type { LiveState } from './types.ts';

export interface PipelineDeps {
  live: LiveState;
  /** Upstream deadlines: until the response starts, and between body chunks of a stream. */
  deadlines: { upstreamMs: number; streamIdleMs: number };
  hooks: PipelineHooks;
  /** Where a failing afterResponse hook is reported. */
  onHookError(err: unknown): void;
}
