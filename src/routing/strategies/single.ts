// `single`: one model, no alternatives. Accepts `{model}` or a one-element `models` / `attempts`.
import { modelsOrAttempts, NO_RETRY } from '../config-parse.ts';
import { ConfigError, type Strategy } from '../types.ts';
import { sequentialDecision } from './sequence.ts';

export const singleStrategy: Strategy = {
  name: 'single',
  compile(config) {
    const refs = modelsOrAttempts(config);
    if (refs.length !== 1) throw new ConfigError('config.models', 'the single strategy takes exactly one model');
    return { refs, decide: (ctx) => sequentialDecision(refs, NO_RETRY, ctx) };
  },
};
