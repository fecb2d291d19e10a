// The one model matcher: budget `models` and API key `allowed_models` share it, so a pattern means
// the same thing in both. Lives in core because the key check runs in the pipeline and the key
// mirror compiles patterns when it loads a key, and both sit below the limits feature.

/** All of a list's patterns as one regex: one exec per call however long the list (up to 50). */
export type CompiledPatterns = RegExp;

const compiled = new WeakMap<readonly string[], CompiledPatterns>();

const globSource = (p: string): string =>
  p
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');

/**
 * Compiled once per array: callers that keep the array (the live mirrors) pay it once. The optional
 * leading group lets `gpt-4o*` match `openai/gpt-4o-mini` too; a slug (`@...`) is never stripped.
 */
export function compileModelPatterns(patterns: readonly string[]): CompiledPatterns {
  let re = compiled.get(patterns);
  if (!re) {
    re = new RegExp(`^(?:(?!@)[^/]*/)?(?:${patterns.map(globSource).join('|')})$`);
    compiled.set(patterns, re);
  }
  return re;
}

/** `gpt-4o*` matches `gpt-4o-mini` and `openai/gpt-4o-mini`; `@support*` matches config slugs. */
export function compiledMatches(re: CompiledPatterns, model: string): boolean {
  return re.test(model);
}

/** Null or empty patterns match every model. */
export function modelMatches(patterns: readonly string[] | null, model: string): boolean {
  if (patterns === null || patterns.length === 0) return true;
  return compiledMatches(compileModelPatterns(patterns), model);
}
