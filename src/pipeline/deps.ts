// What a pipeline flow is given: the live state it reads and the hooks features registered.
import type { PipelineHooks } from './hooks.ts';
import type { LiveState } from './types.ts';

export interface PipelineDeps {
  live: LiveState;
  hooks: PipelineHooks;
  /** Where a failing afterResponse hook is reported. */
  onHookError(err: unknown): void;
}
