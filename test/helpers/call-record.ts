// A finished call as the afterResponse hooks see it, for unit tests of those hooks: a plain
// successful chat completion, with whatever a test cares about overridden.
import type { CallRecord } from '../../src/pipeline/record.ts';

export function callRecord(over: Partial<CallRecord> = {}): CallRecord {
  return {
    id: 'req_1',
    requestType: 'chat_completion',
    orgId: 'org_1',
    projectId: null,
    keyId: 'key_1',
    endUser: null,
    tags: {},
    traceId: null,
    conversationId: null,
    modelRequested: 'openai/gpt-4o-mini',
    modelUsed: 'gpt-4o-mini',
    vendor: 'openai',
    credentialId: null,
    status: 200,
    latencyMs: 100,
    ttfbMs: 50,
    usage: { input: 1, output: 1 },
    costUsd: 0,
    error: null,
    trace: null,
    requestBody: null,
    responseBody: null,
    createdAt: 0,
    healthSamples: [],
    features: {},
    answer: null,
    replayOf: null,
    ...over,
  };
}
