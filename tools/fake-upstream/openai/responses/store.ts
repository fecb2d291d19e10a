// Stored responses and the clock-driven background lifecycle: queued -> in_progress -> terminal.
import type { FakeState } from '../../context.ts';
import type { OaiVendor } from '../env.ts';
import type { Json } from '../util.ts';

export interface StoredResponse {
  /** The response as it will be once finished. */
  final: Json;
  inputItems: Json[];
  background: boolean;
  startedMs: number;
  /** Background only: a `hang` model never finishes. */
  never: boolean;
  cancelled: boolean;
  midstreamError: boolean;
  long: boolean;
}

export function responseStore(state: FakeState, vendor: OaiVendor): Map<string, StoredResponse> {
  return state.store(`oai-responses:${vendor}`, () => new Map<string, StoredResponse>());
}

/** Milliseconds until a background response is terminal (0 when it already is; Infinity for `hang`). */
export function msUntilDone(s: StoredResponse, stepMs: number, now = Date.now()): number {
  if (!s.background || s.cancelled) return 0;
  if (s.never) return Number.POSITIVE_INFINITY;
  return Math.max(0, s.startedMs + 2 * stepMs - now);
}

/** The response object as a GET sees it now. */
export function currentView(s: StoredResponse, stepMs: number, now = Date.now()): Json {
  if (!s.background) return s.final;
  const pending = { ...s.final, output: [], usage: null, incomplete_details: null, error: null };
  if (s.cancelled) return { ...pending, status: 'cancelled' };
  if (now < s.startedMs + stepMs) return { ...pending, status: 'queued' };
  if (s.never || now < s.startedMs + 2 * stepMs) return { ...pending, status: 'in_progress' };
  return s.final;
}
