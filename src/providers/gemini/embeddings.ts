// Gemini embeddings via `:batchEmbedContents`, which serves one or many inputs in one call (the
// official SDK sends single embeds there too).
import type { EmbeddingRequest, EmbeddingResponse, JsonObject } from '../../ir/types.ts';
import { asArray, asNumber, asRecord } from '../../util/json.ts';
import { estimateEmbeddingTokens } from '../shared/estimate-tokens.ts';

export function geminiSupportsDimensions(model: string): boolean {
  const id = stripModelsPrefix(model);
  return id.startsWith('gemini-embedding-') || id === 'text-embedding-004';
}

export function stripModelsPrefix(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

export function toGeminiEmbeddingBody(req: EmbeddingRequest, model: string): JsonObject {
  const id = stripModelsPrefix(model);
  const withDims = req.dimensions !== undefined && geminiSupportsDimensions(id);
  return {
    requests: req.input.map((text) => {
      const one: JsonObject = { model: `models/${id}`, content: { parts: [{ text }] } };
      if (withDims) one.outputDimensionality = req.dimensions ?? null;
      return one;
    }),
  };
}

/** Gemini returns no token counts for embeddings. */
export function fromGeminiEmbeddingResponse(body: unknown, req: EmbeddingRequest, model: string): EmbeddingResponse {
  const vectors = asArray(asRecord(body).embeddings).map((e) =>
    asArray(asRecord(e).values).map((v) => asNumber(v) ?? 0),
  );
  return { model: stripModelsPrefix(model), vectors, usage: { input: estimateEmbeddingTokens(req.input) } };
}
