import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { RecordingSink } from '../../test/helpers/recording-sink.ts';
import { loadConfig } from '../config.ts';
import { openStore } from '../store/index.ts';
import { CACHE_NOT_CONSULTED, logLine, type RequestLogRow } from '../store/request-log-row.ts';
import { newId } from '../util/ids.ts';
import { WorkerLogWriter } from './worker-writer.ts';

const silent = pino({ level: 'silent' });
const tempDataDir = (): string => mkdtempSync(join(tmpdir(), 'switchyard-logw-'));

function row(n: number): RequestLogRow {
  return {
    id: newId('req'),
    requestType: 'chat_completion',
    orgId: 'org_w',
    projectId: null,
    apiKeyId: 'key_w',
    endUser: null,
    tags: { n: String(n) },
    traceId: null,
    conversationId: null,
    modelRequested: 'gpt-4o-mini',
    modelUsed: 'gpt-4o-mini',
    provider: 'openai',
    credentialId: 'prov_w',
    statusCode: 200,
    latencyMs: 1.5,
    ttfbMs: 1,
    inputTokens: 3,
    outputTokens: 2,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: 0.000001,
    error: null,
    decisionTrace: { strategy: 'direct' },
    requestBody: '{"model":"gpt-4o-mini"}',
    responseBody: `{"n":${n}}`,
    createdAt: new Date().toISOString(),
    replayOf: null,
    ...CACHE_NOT_CONSULTED,
  };
}

test('rows enqueued before and after the worker starts are all committed by flush and close', async () => {
  const dataDir = tempDataDir();
  const handle = await openStore(loadConfig({}, { dataDir }));
  try {
    const fallback = new RecordingSink();
    const writer = new WorkerLogWriter(handle.where, silent, fallback);
    const first = Array.from({ length: 5 }, (_, i) => row(i));
    for (const r of first) writer.enqueue(r); // the worker is still starting here
    await writer.flush();
    const stored = await handle.stores.logs.list({ orgId: 'org_w' }, { limit: 100 });
    assert.equal(stored.length, 5);
    const one = stored.find((r) => r.id === first[2].id);
    assert.deepEqual(one?.tags, { n: '2' });
    assert.equal(one?.responseBody, '{"n":2}');
    assert.deepEqual(one?.decisionTrace, { strategy: 'direct' });

    // As the journal hands them on: with the line it wrote, which goes to the worker as it is.
    const later = Array.from({ length: 445 }, (_, i) => row(i + 5));
    for (const r of later) writer.enqueue(r, logLine(r));
    await writer.close();
    const all = await handle.stores.logs.list({ orgId: 'org_w' }, { limit: 1000 });
    assert.equal(all.length, 450);
    const last = all.find((r) => r.id === later[444].id);
    assert.deepEqual(last, { ...later[444], latencyMs: 2 });
    assert.equal(fallback.rows.length, 0);
  } finally {
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a worker that cannot open its database hands every row to the fallback writer', async () => {
  const fallback = new RecordingSink();
  const writer = new WorkerLogWriter(join(tempDataDir(), 'missing-dir', 'x.db'), silent, fallback);
  const rows = Array.from({ length: 3 }, (_, i) => row(i));
  for (const r of rows) writer.enqueue(r);
  await writer.flush();
  writer.enqueue(row(3));
  await writer.close();
  assert.deepEqual(
    fallback.rows.map((r) => r.responseBody),
    ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}'],
  );
});
