// Both body forms of a routing config, reduced to one shape: `project_id`/`projectId`,
// `strategy`/`policy` (with `fallback_chain` meaning fallback), and the strategy's `config`, which is
// compiled here so that an invalid config is refused at write time rather than at call time.
import { isRecord, positiveInt } from './config-parse.ts';
import { STRATEGIES } from './strategies/index.ts';
import { type CompiledStrategy, ConfigError, STRATEGY_NAMES, type StrategyName } from './types.ts';

const ALIASES: Record<string, StrategyName> = { fallback_chain: 'fallback' };

export function strategyName(v: unknown, field = 'strategy'): StrategyName {
  if (typeof v !== 'string') throw new ConfigError(field, `required: one of ${STRATEGY_NAMES.join(', ')}`);
  const s = v.trim().toLowerCase().replace(/-/g, '_');
  const name = ALIASES[s] ?? s;
  if (!(STRATEGY_NAMES as readonly string[]).includes(name)) {
    throw new ConfigError(field, `unknown strategy "${v}"; one of ${STRATEGY_NAMES.join(', ')} (or fallback_chain)`);
  }
  return name as StrategyName;
}

/** More candidates than this is a mistake (or an attack on the plan loop), not a routing policy. */
export const MAX_CANDIDATES = 16;

export function compileStrategy(strategy: StrategyName, config: Record<string, unknown>): CompiledStrategy {
  const compiled = STRATEGIES[strategy].compile(config);
  if (compiled.refs.length > MAX_CANDIDATES)
    throw new ConfigError('config', `at most ${MAX_CANDIDATES} candidates per config, got ${compiled.refs.length}`);
  return compiled;
}

const SLUG = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function checkSlug(v: unknown): string {
  if (typeof v !== 'string' || !SLUG.test(v)) {
    throw new ConfigError(
      'slug',
      'expected 1-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
    );
  }
  return v;
}

export function slugFromName(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return s === '' ? 'config' : s;
}

export interface NormalizedConfig {
  projectId: string | null;
  name: string;
  slug: string;
  strategy: StrategyName;
  config: Record<string, unknown>;
  embeddingDimensions: number | null;
  compiled: CompiledStrategy;
}

function dims(v: unknown): number | null {
  return positiveInt(v, 'embedding_dimensions') ?? null;
}

function projectOf(body: Record<string, unknown>): string | null | undefined {
  const p = body.project_id ?? body.projectId;
  if (p === undefined) return undefined;
  if (p !== null && typeof p !== 'string') throw new ConfigError('project_id', 'expected a string');
  return p;
}

/** The create body: name and slug (one derived from the other when missing), strategy, config. */
export function normalizeCreate(body: Record<string, unknown>): NormalizedConfig {
  const rawName = body.name ?? body.slug;
  if (typeof rawName !== 'string' || rawName.trim() === '') throw new ConfigError('name', 'required string');
  const slug = checkSlug(body.slug ?? slugFromName(rawName));
  const strategy = strategyName(body.strategy ?? body.policy, body.strategy !== undefined ? 'strategy' : 'policy');
  const config = body.config ?? {};
  if (!isRecord(config)) throw new ConfigError('config', 'expected an object');
  return {
    projectId: projectOf(body) ?? null,
    name: rawName,
    slug,
    strategy,
    config,
    embeddingDimensions: dims(body.embedding_dimensions ?? body.embeddingDimensions),
    compiled: compileStrategy(strategy, config),
  };
}

export interface CurrentContent {
  projectId: string | null;
  name: string;
  slug: string;
  strategy: string;
  config: Record<string, unknown>;
  embeddingDimensions: number | null;
}

/** A PATCH body applied over the current version; absent fields keep their current value. */
export function normalizePatch(cur: CurrentContent, body: Record<string, unknown>): NormalizedConfig {
  const name = body.name ?? cur.name;
  if (typeof name !== 'string' || name.trim() === '') throw new ConfigError('name', 'expected a non-empty string');
  if (body.slug !== undefined && body.slug !== cur.slug) {
    throw new ConfigError('slug', 'the slug of a config cannot change; create a new config instead');
  }
  const rawStrategy = body.strategy ?? body.policy;
  const strategy = rawStrategy === undefined ? strategyName(cur.strategy) : strategyName(rawStrategy);
  const config = body.config ?? cur.config;
  if (!isRecord(config)) throw new ConfigError('config', 'expected an object');
  const rawDims = body.embedding_dimensions !== undefined ? body.embedding_dimensions : body.embeddingDimensions;
  return {
    projectId: cur.projectId,
    name,
    slug: cur.slug,
    strategy,
    config,
    embeddingDimensions: rawDims === undefined ? cur.embeddingDimensions : dims(rawDims),
    compiled: compileStrategy(strategy, config),
  };
}
