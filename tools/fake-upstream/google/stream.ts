// Pure split of a Gemini answer into streamGenerateContent chunks: text arrives in pieces, function calls
// whole, usage is cumulative on every chunk and the last chunk carries finishReason. As recorded from
// the API, streamed candidates have no `index`, and only the last chunk's usage breaks the candidate
// tokens down by modality.
import { randomId } from '../anthropic/util.ts';
import { chunkText, countTokens } from '../script.ts';
import { type GeminiAnswer, usageMetadata } from './generate.ts';
import type { GPart } from './validate.ts';

export function streamChunks(a: GeminiAnswer, model: string, pieces: number): unknown[] {
  const groups: GPart[][] = [];
  const calls: GPart[] = [];
  for (const p of a.parts) {
    if (typeof p.text === 'string') {
      for (const piece of chunkText(p.text, pieces)) groups.push([{ ...p, text: piece }]);
    } else calls.push(p);
  }
  if (calls.length) groups.push(calls);
  const responseId = randomId('', 20);
  let emitted = 0;
  return groups.map((parts, i) => {
    const last = i === groups.length - 1;
    for (const p of parts) if (typeof p.text === 'string' && p.thought !== true) emitted += countTokens(p.text);
    const usage = usageMetadata(a, last ? a.candidateTokens : Math.min(emitted, a.candidateTokens));
    return {
      candidates: [{ content: { parts, role: 'model' }, ...(last ? { finishReason: a.finishReason } : {}) }],
      usageMetadata: last
        ? { ...usage, candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: a.candidateTokens }] }
        : usage,
      modelVersion: model,
      responseId,
    };
  });
}
