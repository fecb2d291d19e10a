// Reads the decision traces of routed calls for the decisions summary. Aggregation happens in
// src/routing/decisions.ts; this file only holds the query.

import { fromJsonText } from '../util/json.ts';
import type { Db } from './db.ts';

export interface TracedCall {
  status: number;
  trace: unknown;
}

export interface DecisionQuery {
  orgId: string;
  projectId?: string;
  start?: string;
  end?: string;
  /** Newest rows first, at most this many. */
  limit: number;
}

export async function tracedCalls(db: Db, q: DecisionQuery): Promise<TracedCall[]> {
  let sel = db
    .selectFrom('request_logs')
    .select(['status_code', 'decision_trace'])
    .where('org_id', '=', q.orgId)
    .where('decision_trace', 'is not', null)
    .where('model_requested', 'like', '@%');
  if (q.projectId !== undefined) sel = sel.where('project_id', '=', q.projectId);
  if (q.start !== undefined) sel = sel.where('created_at', '>=', q.start);
  if (q.end !== undefined) sel = sel.where('created_at', '<', q.end);
  const rows = await sel.orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map((r) => ({ status: r.status_code, trace: fromJsonText(r.decision_trace) }));
}
