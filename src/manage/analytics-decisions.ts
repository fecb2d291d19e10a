// GET /manage/v1/analytics/decisions: routing decisions per config, read from the log rows' traces.
import { Type } from '@sinclair/typebox';
import { summarizeDecisions } from '../routing/decisions.ts';
import { tracedCalls } from '../store/routing-configs-decisions.ts';
import { requireOrgKey } from './access.ts';
import { defineOperation, type Operation } from './operation.ts';

const Counts = Type.Record(Type.String(), Type.Integer());

const Summary = Type.Object({
  slug: Type.String(),
  policy: Type.String(),
  versions: Type.Array(Type.Integer()),
  requests: Type.Integer(),
  errors: Type.Integer(),
  attempts: Type.Integer(),
  avg_attempts: Type.Number(),
  fallbacks: Type.Integer(),
  fallback_rate: Type.Number(),
  served_by: Counts,
  variants: Counts,
  matched_rules: Counts,
  reasons: Counts,
});

const getDecisionsSummary = defineOperation({
  name: 'get_decisions_summary',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/analytics/decisions',
  tag: 'analytics',
  summary: 'Routing decisions per config: attempts, fallback frequency, skip and failure reasons',
  input: {
    query: Type.Object(
      {
        start: Type.Optional(Type.String({ description: 'ISO 8601, inclusive' })),
        end: Type.Optional(Type.String({ description: 'ISO 8601, exclusive' })),
        project_id: Type.Optional(Type.String({ maxLength: 100 })),
      },
      { additionalProperties: false },
    ),
  },
  output: Type.Object({ data: Type.Array(Summary), sampled_requests: Type.Integer() }),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    // Writes are batched behind responses: flush so that a summary right after a call includes it.
    await svc.logs.flush();
    const rows = await tracedCalls(svc.db, {
      orgId,
      projectId: query.project_id,
      start: query.start,
      end: query.end,
      limit: 50_000,
    });
    return { data: summarizeDecisions(rows), sampled_requests: rows.length };
  },
});

export const decisionOperations: Operation[] = [getDecisionsSummary];
