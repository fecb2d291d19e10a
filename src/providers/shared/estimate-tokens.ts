// Embedding APIs that report no token count (Gemini, Bedrock Cohere) still need a usage figure for
// budgets and cost: a chars/4 estimate, the rule of thumb the vendors publish.
export function estimateEmbeddingTokens(texts: string[]): number {
  return texts.reduce((sum, t) => sum + Math.ceil(t.length / 4), 0);
}
