// Family beta (messages style) as the pipeline sees it.
import type { FamilyCodec } from '../shared/codec.ts';
import { sseEvent } from '../shared/sse.ts';
import { decodeBetaMessages } from './codec/decode-request.ts';
import { encodeBetaMessage } from './codec/encode-response.ts';
import { betaErrorBody } from './codec/error-body.ts';
import { stripBetaForPassthrough } from './codec/passthrough.ts';
import { BetaPassthroughStream } from './codec/passthrough-stream.ts';
import { newBetaStreamEncoder } from './codec/stream-encoder.ts';

export const betaCodec: FamilyCodec = {
  family: 'beta',
  requestType: 'message',
  nativeWire: 'anthropic',
  decode(body) {
    const d = decodeBetaMessages(body);
    return { ir: d.ir, svc: d.svc, includeUsage: false };
  },
  encode: (res, ids) => encodeBetaMessage(res, { id: `msg_${ids.requestId.slice(4)}`, model: ids.model }),
  streamEncoder: (ids) => newBetaStreamEncoder({ id: `msg_${ids.requestId.slice(4)}`, model: ids.model }),
  errorBody: betaErrorBody,
  errorRecord: (e) => sseEvent('error', betaErrorBody(e)),
  passthroughBody: (body, model, opts) => stripBetaForPassthrough(body, model, opts.rawBody),
  passthroughStream: (summary) => new BetaPassthroughStream(summary),
  // The messages wire has no output option outside the IR.
  wireExtras: () => ({}),
  // The caller's version and beta flags travel to the native upstream; without them the upstream
  // adapter sends its own default version.
  upstreamHeaders(hdr) {
    if (!hdr.altVersion && !hdr.altBeta) return undefined;
    const h: Record<string, string> = {};
    if (hdr.altVersion) h['anthropic-version'] = hdr.altVersion;
    if (hdr.altBeta) h['anthropic-beta'] = hdr.altBeta;
    return h;
  },
};
