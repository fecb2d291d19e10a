// Planner entry points: the request facts every strategy reads (built from the IR and the svc
// headers/extensions, never from family-specific fields), and the decision for a config.
import type { IncomingHttpHeaders } from 'node:http';
import type { Family } from '../families/shared/codec.ts';
import type { SvcExtensions } from '../families/shared/svc.ts';
import type { SvcHeaders } from '../families/shared/svc-headers.ts';
import type { ChatRequest } from '../ir/types.ts';
import { lookupModel } from '../providers/catalog/index.ts';
import { estimateRequestTokens } from '../tokens/estimate.ts';
import type { ActiveConfig, CandidateRef, Decision, HealthView, RequestFacts } from './types.ts';

export interface FactsInput {
  family: Family;
  ir: ChatRequest;
  svc: SvcExtensions;
  hdr: SvcHeaders;
  headers: IncomingHttpHeaders;
}

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export function requestFacts(input: FactsInput): RequestFacts {
  const meta = input.svc.metadata ?? {};
  const metaStr = (k: string): string | undefined => (typeof meta[k] === 'string' ? (meta[k] as string) : undefined);
  return {
    family: input.family,
    ir: input.ir,
    tags: { ...input.svc.tags, ...input.hdr.tags },
    endUser: input.hdr.userId ?? input.svc.endUser ?? input.ir.params.user ?? metaStr('user_id'),
    traceId: input.hdr.traceId ?? metaStr('trace_id'),
    metadata: meta,
    headers: flatHeaders(input.headers),
    estimatedTokens: estimateRequestTokens(input.ir),
  };
}

export interface PlanOptions {
  health: HealthView;
  hasCredential?: (ref: CandidateRef) => boolean;
  random?: () => number;
  now?: number;
}

export function planFor(cfg: ActiveConfig, facts: RequestFacts, opts: PlanOptions): Decision {
  return cfg.compiled.decide({
    req: facts,
    slug: cfg.slug,
    lookupModel,
    health: opts.health,
    hasCredential: opts.hasCredential,
    random: opts.random ?? Math.random,
    now: opts.now ?? Date.now(),
  });
}
