// The request-log writer batches behind the response and loses nothing on graceful shutdown.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import { newId } from '../../src/util/ids.ts';
import { startGateway } from '../helpers/gateway.ts';

function row(orgId: string): RequestLogRow {
  return {
    id: newId('req'),
    requestType: 'chat',
    orgId,
    projectId: null,
    apiKeyId: null,
    endUser: null,
    tags: null,
    traceId: null,
    conversationId: null,
    modelRequested: 'm',
    modelUsed: 'm',
    provider: 'openai',
    credentialId: 'prov_x',
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
  };
}

describe('log writer', () => {
  test('enqueue is fire-and-forget; rows land within the flush interval; close() flushes the rest', async () => {
    const gw = await startGateway();
    const { svc } = gw.app;
    const orgId = svc.bootstrap.orgId;
    for (let i = 0; i < 450; i++) svc.logs.enqueue(row(orgId));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await svc.stores.logs.list({ orgId }, { limit: 1000 })).length, 450);

    for (let i = 0; i < 7; i++) svc.logs.enqueue(row(orgId));
    const reopened = await startGateway({ dataDir: gw.dataDir });
    await gw.close({ keepData: true }); // graceful: drains, flushes the writer, closes the db
    try {
      const rows = await reopened.app.svc.stores.logs.list({ orgId }, { limit: 1000 });
      assert.equal(rows.length, 457);
    } finally {
      await reopened.close();
      rmSync(gw.dataDir, { recursive: true, force: true });
    }
  });
});
