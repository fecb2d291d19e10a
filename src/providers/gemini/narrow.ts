// Upstream JSON narrowing is shared by the adapters; only the id helper is Gemini's own.
import { randomId } from '../shared/narrow.ts';

export { arr, isRec, num, type Rec, randomId, rec, str } from '../shared/narrow.ts';

/** Gemini does not always send function-call ids; the gateway needs one to pair results. */
export const newToolCallId = (): string => randomId('call_');
