// Embeddings for every vendor that has them: one request shape in (alpha), adapters out, the SPEC's
// dimension rules enforced here (1: honoured where supported, stripped for fixed-size models;
// 3: a vector of the wrong length from the upstream -> 502 dimension_mismatch).
import { errorSpec, renderMessage } from '../errors/codes.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { EmbeddingRequest, EmbeddingResponse, UpstreamErrorInfo } from '../ir/types.ts';
import { attemptFailure } from '../providers/attempt-failure.ts';
import { lookupModel } from '../providers/catalog/index.ts';
import { type Deadlines, sendUpstream } from '../providers/http.ts';
import { chatAdapterFor, embeddingAdapterFor } from '../providers/registry.ts';
import type { Target } from '../providers/types.ts';

export interface EmbeddingBody {
  model: string;
  input: string[];
  dimensions?: number;
  encodingFormat: 'float' | 'base64';
  user?: string;
}

export function decodeEmbeddingBody(body: unknown): EmbeddingBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', { message: 'request body must be a JSON object' });
  }
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '')
    throw new GatewayError('invalid_request', { message: 'model: required string', param: 'model' });
  let input: string[];
  if (typeof b.input === 'string') input = [b.input];
  else if (Array.isArray(b.input) && b.input.length > 0 && b.input.every((x) => typeof x === 'string')) {
    input = b.input as string[];
  } else {
    throw new GatewayError('invalid_request', {
      message: 'input: expected a non-empty string or a non-empty array of strings',
      param: 'input',
    });
  }
  if (input.length > 2048)
    throw new GatewayError('invalid_request', { message: 'input: at most 2048 items per request', param: 'input' });
  let dimensions: number | undefined;
  if (b.dimensions !== undefined && b.dimensions !== null) {
    if (
      typeof b.dimensions !== 'number' ||
      !Number.isInteger(b.dimensions) ||
      b.dimensions < 1 ||
      b.dimensions > 65536
    ) {
      throw new GatewayError('invalid_request', {
        message: 'dimensions: expected a positive integer',
        param: 'dimensions',
      });
    }
    dimensions = b.dimensions;
  }
  const fmt = b.encoding_format ?? 'float';
  if (fmt !== 'float' && fmt !== 'base64') {
    throw new GatewayError('invalid_request', {
      message: 'encoding_format: expected "float" or "base64"',
      param: 'encoding_format',
    });
  }
  if (b.user !== undefined && typeof b.user !== 'string')
    throw new GatewayError('invalid_request', { message: 'user: expected a string', param: 'user' });
  return { model: b.model, input, dimensions, encodingFormat: fmt, user: b.user as string | undefined };
}

export type EmbedOutcome =
  | {
      ok: true;
      response: EmbeddingResponse;
      dimensionsSent?: number;
      /** OpenAI-wire upstreams: the upstream's float answer as text, already in the alpha shape. */
      alphaFloatText?: string;
    }
  | { ok: false; error: UpstreamErrorInfo };

/**
 * Calls the upstream. `dimensions` is forwarded only to models that honour it; `expectDimensions`
 * (a pinned length from a routing config, or the honoured request) is checked on every vector.
 */
export async function embedOnce(
  req: EmbeddingRequest,
  target: Target,
  signal: CallSignal,
  expectDimensions?: number,
  deadlines?: Deadlines,
): Promise<EmbedOutcome> {
  const adapter = embeddingAdapterFor(target.vendor);
  if (!adapter) {
    return {
      ok: false,
      error: {
        status: 400,
        kind: 'invalid_request',
        code: 'no_embeddings_api',
        message: renderMessage(errorSpec('no_embeddings_api').message, { vendor: target.vendor }),
        retryable: false,
      },
    };
  }
  const honoured = req.dimensions !== undefined && adapter.supportsDimensions(target.model);
  const upstreamReq: EmbeddingRequest = {
    ...req,
    model: target.model,
    dimensions: honoured ? req.dimensions : undefined,
  };
  const errorAdapter = chatAdapterFor(target.vendor, target.model);
  try {
    const specs = await adapter.embeddingRequests(upstreamReq, target);
    const bodies: unknown[] = [];
    let lastText = '';
    for (const spec of specs) {
      const res = await sendUpstream(spec, { signal, deadlines });
      const text = await res.body.text();
      if (res.status < 200 || res.status >= 300) {
        return { ok: false, error: errorAdapter.decodeError(res.status, text, res.headers) };
      }
      bodies.push(JSON.parse(text));
      lastText = text;
    }
    const response = adapter.decodeEmbeddingResponses(bodies, upstreamReq, target);
    const expected =
      expectDimensions ?? (honoured ? req.dimensions : lookupModel(target.vendor, target.model)?.dimensions);
    if (expected !== undefined) {
      const bad = response.vectors.find((v) => v.length !== expected);
      if (bad) {
        return {
          ok: false,
          error: {
            status: 502,
            kind: 'server',
            code: 'dimension_mismatch',
            message: `upstream returned vectors of length ${bad.length}, expected ${expected}`,
            retryable: false,
          },
        };
      }
    }
    const alphaFloatText =
      errorAdapter.wire === 'openai' && specs.length === 1 && isAlphaShaped(bodies[0]) ? lastText : undefined;
    return { ok: true, response, dimensionsSent: upstreamReq.dimensions, alphaFloatText };
  } catch (err) {
    return { ok: false, error: attemptFailure(err) };
  }
}

/**
 * Printing 1,536 floats again costs more CPU than the rest of the call, so an OpenAI-wire answer is
 * forwarded as the upstream wrote it when it already is what encodeEmbeddingResponse would produce: float
 * vectors in index order and a usage object.
 */
function isAlphaShaped(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as { data?: unknown; usage?: unknown };
  if (typeof b.usage !== 'object' || b.usage === null || !Array.isArray(b.data)) return false;
  return b.data.every((d: unknown, i) => {
    const row = d as { index?: unknown; embedding?: unknown } | null;
    return row !== null && row.index === i && Array.isArray(row.embedding);
  });
}

/** Alpha wire shape; base64 is little-endian float32, as the OpenAI API encodes it. */
export function encodeEmbeddingResponse(
  res: EmbeddingResponse,
  model: string,
  format: 'float' | 'base64',
): Record<string, unknown> {
  return {
    object: 'list',
    data: res.vectors.map((v, index) => ({
      object: 'embedding',
      index,
      embedding: format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v,
    })),
    model,
    usage: { prompt_tokens: res.usage.input, total_tokens: res.usage.input },
  };
}
