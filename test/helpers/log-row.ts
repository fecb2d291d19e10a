// A request-log row with every column set to a plain value, for tests that write rows to a store or
// the log writer directly; each test overrides what it looks at.
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import { newId } from '../../src/util/ids.ts';

export function logRow(over: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id: newId('req'),
    requestType: 'chat',
    orgId: 'org_a',
    projectId: null,
    apiKeyId: null,
    endUser: null,
    tags: null,
    traceId: null,
    conversationId: null,
    modelRequested: 'm',
    modelUsed: 'm',
    provider: 'openai',
    credentialId: null,
    statusCode: 200,
    latencyMs: 12,
    ttfbMs: null,
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: null,
    error: null,
    decisionTrace: null,
    requestBody: null,
    responseBody: null,
    createdAt: new Date().toISOString(),
    cache: null,
    replayOf: null,
    savedCostUsd: 0,
    cacheSimilarity: null,
    cacheShadowMatch: null,
    ...over,
  };
}
