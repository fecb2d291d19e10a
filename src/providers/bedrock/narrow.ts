// Upstream JSON narrowing is shared by the adapters; only the id helper is Bedrock's own.
import { randomId } from '../shared/narrow.ts';

export { arr, isRec, num, type Rec, randomId, rec, str } from '../shared/narrow.ts';

/** Converse ids come from upstream; this prefix is for gateway-made response ids. */
export const newMessageId = (): string => randomId('msg_bdrk_');
