// Pure split of a Gemini answer into streamGenerateContent chunks: text arrives in pieces, function calls
// whole, usage is cumulative on every chunk and the last chunk carries finishReason.
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
    return {
      candidates: [{ content: { parts, role: 'model' }, ...(last ? { finishReason: a.finishReason } : {}), index: 0 }],
      usageMetadata: usageMetadata(a, last ? a.candidateTokens : Math.min(emitted, a.candidateTokens)),
      modelVersion: model,
      responseId,
    };
  });
}
