// `fallback` (alias `fallback_chain`): ordered attempts, each with its own timeout; the next one is
// tried only when the failure matches `retry_on` (default 429, 5xx, timeout). Other errors return at once.
import { modelsOrAttempts, parseRetryOn } from '../config-parse.ts';
import type { Strategy } from '../types.ts';
import { sequentialDecision } from './sequence.ts';

export const fallbackStrategy: Strategy = {
  name: 'fallback',
  compile(config) {
    const refs = modelsOrAttempts(config);
    const retry = parseRetryOn(config.retry_on ?? config.retryOn);
    return { refs, decide: (ctx) => sequentialDecision(refs, retry, ctx) };
  },
};
