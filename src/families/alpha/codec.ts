// Family alpha (chat-completions style) as the pipeline sees it.
import { isRecord } from '../../util/json.ts';
import type { FamilyCodec } from '../shared/codec.ts';
import { sseData } from '../shared/sse.ts';
import { decodeAlphaChat } from './codec/decode-request.ts';
import { encodeAlphaChat } from './codec/encode-response.ts';
import { alphaErrorBody } from './codec/error-body.ts';
import { rawForPassthrough, stripForPassthrough } from './codec/passthrough.ts';
import { AlphaPassthroughStream } from './codec/passthrough-stream.ts';
import { newAlphaStreamEncoder } from './codec/stream-encoder.ts';
import { alphaWireExtras } from './codec/wire-extras.ts';

export const alphaCodec: FamilyCodec = {
  family: 'alpha',
  requestType: 'chat_completion',
  nativeWire: 'openai',
  decode(body) {
    const d = decodeAlphaChat(body);
    return { ir: d.ir, svc: d.svc, includeUsage: d.includeUsage === true };
  },
  encode: (res, ids) =>
    encodeAlphaChat(res, { id: `chatcmpl-${ids.requestId.slice(4)}`, model: ids.model, created: ids.created }),
  streamEncoder: (ids, includeUsage) =>
    newAlphaStreamEncoder({
      id: `chatcmpl-${ids.requestId.slice(4)}`,
      model: ids.model,
      created: ids.created,
      includeUsage,
    }),
  errorBody: alphaErrorBody,
  errorRecord: (e) => sseData(alphaErrorBody(e)),
  passthroughBody(body, model, opts) {
    // Usage is asked for on every stream so cost and logs are exact; the relay hides the extra usage
    // chunk from callers who did not ask for it.
    const forceUsage = opts.stream && !opts.includeUsage;
    const raw = rawForPassthrough(body, model, opts, forceUsage);
    if (raw !== undefined) return raw;
    const withUsage = forceUsage
      ? {
          ...body,
          stream_options: { ...(isRecord(body.stream_options) ? body.stream_options : {}), include_usage: true },
        }
      : body;
    return stripForPassthrough(withUsage, model, opts.userOverride);
  },
  passthroughStream: (summary, callerWantsUsage) => new AlphaPassthroughStream(summary, callerWantsUsage),
  wireExtras: alphaWireExtras,
  upstreamHeaders: () => undefined,
};
