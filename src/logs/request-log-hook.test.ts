import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRecord } from '../../test/helpers/call-record.ts';
import type { CallRecord } from '../pipeline/record.ts';
import { toStoreRow } from './request-log-hook.ts';

const record = (requestBody: unknown): CallRecord =>
  callRecord({
    modelRequested: 'm',
    modelUsed: null,
    vendor: null,
    latencyMs: 1,
    ttfbMs: null,
    usage: { input: 0, output: 0 },
    requestBody,
    responseBody: { ok: true },
  });

test('logged bodies are cut at the limit with a marker saying how long they were', () => {
  const row = toStoreRow(record('x'.repeat(100)), true, 10);
  assert.equal(row.requestBody, `${'x'.repeat(10)}…[truncated: 100 characters]`);
  assert.equal(row.responseBody, '{"ok":true}'.length <= 10 ? '{"ok":true}' : `{"ok":true…[truncated: 11 characters]`);
  assert.equal(toStoreRow(record('short'), true, 10).requestBody, 'short');
  assert.equal(toStoreRow(record('short'), false, 10).requestBody, null);
});
