// The strategy registry: one file per strategy, all behind the same interface.
import type { Strategy, StrategyName } from '../types.ts';
import { abTestStrategy } from './ab-test.ts';
import { cascadeStrategy } from './cascade.ts';
import { costOptimizedStrategy } from './cost-optimized.ts';
import { customRulesStrategy } from './custom-rules.ts';
import { ensembleStrategy } from './ensemble.ts';
import { fallbackStrategy } from './fallback.ts';
import { latencyOptimizedStrategy } from './latency-optimized.ts';
import { singleStrategy } from './single.ts';

export const STRATEGIES: Readonly<Record<StrategyName, Strategy>> = {
  single: singleStrategy,
  fallback: fallbackStrategy,
  cost_optimized: costOptimizedStrategy,
  latency_optimized: latencyOptimizedStrategy,
  ensemble: ensembleStrategy,
  ab_test: abTestStrategy,
  cascade: cascadeStrategy,
  custom_rules: customRulesStrategy,
};
