// Request-log rows written straight through the store's insert (rollups included), for pages that
// need a shape of traffic the fake upstream would take long to make: tiny costs, polls, listings.
import type { RequestLogRow } from '../../../src/store/request-logs.ts';
import { idAt } from '../../../src/util/ids.ts';
import type { Gateway } from '../../helpers/gateway.ts';
import { logRow as baseRow } from '../../helpers/log-row.ts';

let n = 0;

export function logRow(gw: Gateway, row: Partial<RequestLogRow> & { createdAt: string }): RequestLogRow {
  return baseRow({
    id: idAt('req', Date.parse(row.createdAt), `ui-row-${n++}`),
    requestType: 'chat_completion',
    orgId: gw.app.svc.bootstrap.orgId,
    modelRequested: 'openai/gpt-4o-mini',
    modelUsed: 'gpt-4o-mini',
    latencyMs: 120,
    inputTokens: 10,
    outputTokens: 5,
    costUsd: 0,
    ...row,
  });
}

export async function insertRows(gw: Gateway, rows: RequestLogRow[]): Promise<void> {
  await gw.app.svc.stores.logs.insertMany([...rows].sort((a, b) => (a.id < b.id ? -1 : 1)));
}
