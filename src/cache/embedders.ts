// Where prompt embeddings come from (settings `embedder`): `local`, in process and synchronous, or
// any embedding model the gateway reaches (`<vendor>/<model>` or `@slug`), called through the
// gateway's own embeddings pipeline as a sub-call of the chat call: it is routed, limited, priced and
// logged like any call, with the chat call's request id as its trace id.
import { alphaCodec } from '../families/alpha/codec.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { runEmbedding } from '../pipeline/embeddings.ts';
import type { ProxyCall } from '../pipeline/types.ts';
import { newId } from '../util/ids.ts';
import { isRecord } from '../util/json.ts';
import { LocalEmbedder } from './local-embedder.ts';

export interface Embedding {
  /** The vector space: vectors compare only within one. */
  embedder: string;
  vector: Float32Array;
}

export interface CacheEmbedders {
  local: LocalEmbedder;
  /** One text through an embedding model, as a sub-call of `call`; undefined when it failed. */
  remote(call: ProxyCall, model: string, text: string): Promise<Float32Array | undefined>;
}

/** Synchronous for `local`, so a cache miss on the default embedder costs no promise. */
export function embedPrompt(
  embedders: CacheEmbedders,
  spec: string,
  call: ProxyCall,
  text: string,
): Embedding | undefined | Promise<Embedding | undefined> {
  if (spec === 'local') return { embedder: embedders.local.id, vector: embedders.local.embedOne(text) };
  return embedders.remote(call, spec, text).then((vector) => (vector ? { embedder: spec, vector } : undefined));
}

/** The first vector of an alpha embeddings answer (float format), or undefined. */
function firstVector(body: unknown): Float32Array | undefined {
  const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
  if (!isRecord(parsed) || !Array.isArray(parsed.data)) return undefined;
  const item: unknown = parsed.data[0];
  if (!isRecord(item) || !Array.isArray(item.embedding)) return undefined;
  const values = item.embedding;
  if (values.length === 0 || !values.every((v) => typeof v === 'number')) return undefined;
  return Float32Array.from(values as number[]);
}

export function cacheEmbedders(pipeline: () => PipelineDeps, onError: (err: unknown) => void): CacheEmbedders {
  const local = new LocalEmbedder();
  return {
    local,
    async remote(call, model, text) {
      try {
        const reply = await runEmbedding(
          {
            codec: alphaCodec,
            principal: call.principal,
            requestId: newId('req'),
            body: { model, input: [text], encoding_format: 'float' },
            headers: { 'x-svc-trace-id': call.hdr.traceId ?? call.requestId },
            signal: call.signal,
          },
          pipeline(),
        );
        if (reply.kind !== 'json') return undefined;
        reply.done();
        return reply.status === 200 ? firstVector(reply.body) : undefined;
      } catch (err) {
        onError(err);
        return undefined;
      }
    },
  };
}
