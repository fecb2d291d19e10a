// `ab_test`: weighted variants. The bucket is sticky per end user (X-Svc-User-Id / svc:end_user), else
// per trace id, else random; the chosen variant's name is recorded as the variant bucket.
import { isRecord, parseCandidate, parseCandidateList, parseRetryOn } from '../config-parse.ts';
import { screen, traceOf } from '../eligibility.ts';
import { type CandidateRef, ConfigError, type PlanContext, type Strategy } from '../types.ts';
import { sequentialDecision } from './sequence.ts';

interface Variant {
  name: string;
  weight: number;
  refs: CandidateRef[];
}

function parseVariant(v: unknown, i: number): Variant {
  const f = `config.variants[${i}]`;
  if (!isRecord(v)) throw new ConfigError(f, 'expected {name, weight, model}');
  const weight = v.weight ?? 1;
  if (typeof weight !== 'number' || !(weight >= 0)) throw new ConfigError(`${f}.weight`, 'expected a number >= 0');
  const refs =
    v.models !== undefined
      ? parseCandidateList(v.models, `${f}.models`)
      : [parseCandidate(isRecord(v.model) ? v.model : v.model === undefined ? undefined : v, f)];
  const name = typeof v.name === 'string' && v.name !== '' ? v.name : `variant_${i + 1}`;
  return { name, weight, refs };
}

/** FNV-1a, scaled to [0, 1): stable across processes, so a user keeps the bucket on every instance. */
export function stableUnit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 4294967296;
}

function bucketPoint(ctx: PlanContext): number {
  const key = ctx.req.endUser ? `user:${ctx.req.endUser}` : ctx.req.traceId ? `trace:${ctx.req.traceId}` : undefined;
  return key === undefined ? ctx.random() : stableUnit(`${ctx.slug}|${key}`);
}

export const abTestStrategy: Strategy = {
  name: 'ab_test',
  compile(config) {
    if (!Array.isArray(config.variants) || config.variants.length === 0) {
      throw new ConfigError('config.variants', 'expected a non-empty array of {name, weight, model}');
    }
    const variants = config.variants.map(parseVariant);
    const total = variants.reduce((s, v) => s + v.weight, 0);
    if (total <= 0) throw new ConfigError('config.variants', 'at least one variant needs a positive weight');
    const retry = parseRetryOn(config.retry_on ?? config.retryOn);
    return {
      refs: variants.flatMap((v) => v.refs),
      decide(ctx) {
        let point = bucketPoint(ctx) * total;
        let chosen = variants[variants.length - 1];
        for (const v of variants) {
          if (point < v.weight) {
            chosen = v;
            break;
          }
          point -= v.weight;
        }
        const d = sequentialDecision(chosen.refs, retry, ctx, { variantBucket: chosen.name });
        const others = variants.filter((v) => v !== chosen).flatMap((v) => v.refs);
        const s = screen(others, ctx);
        const otherTraces = others.map((r) => {
          const t = s.traces.get(r) ?? traceOf(r, false, 'not_considered');
          return t.eligible ? { ...t, reason: 'variant_not_chosen' } : t;
        });
        return { ...d, candidates: [...d.candidates, ...otherTraces] };
      },
    };
  },
};
