import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineRow, lineValues, logLine, logValues, type RequestLogRow, toLogTable } from './request-log-row.ts';
import { LOG_COLUMNS } from './request-log-sqlite.ts';

/** Every field set, and set apart from its default, so a value read from the wrong field shows. */
const row: RequestLogRow = {
  id: 'req_01',
  requestType: 'chat_completion',
  orgId: 'org_1',
  projectId: 'proj_1',
  apiKeyId: 'key_1',
  endUser: 'user-7',
  tags: { team: 'search', 'quote"d': 'line\nbreak' },
  traceId: 'trace-1',
  conversationId: 'conv-1',
  modelRequested: 'openai/gpt-4o-mini',
  modelUsed: 'gpt-4o-mini-2024-07-18',
  provider: 'openai',
  credentialId: 'prov_1',
  statusCode: 429,
  latencyMs: 12.6,
  ttfbMs: 3.4,
  inputTokens: 11,
  outputTokens: 22,
  cacheReadTokens: 33,
  cacheCreationTokens: 44,
  costUsd: 0.0125,
  error: { kind: 'rate_limit', message: 'slow down' },
  decisionTrace: { policy: 'fallback', attempts: [{ model: 'a', status: 429 }] },
  requestBody: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi\\u2028there"}]}',
  responseBody: 'not json at all, with a\nnewline',
  createdAt: '2025-01-02T03:04:05.678Z',
  cache: 'miss',
  replayOf: 'req_00',
  savedCostUsd: 0.5,
  cacheSimilarity: 0.93,
  cacheShadowMatch: true,
  otelTraceId: '0af7651916cd43dd8448eb211c80319c',
  guardrailAction: 'shadow_block',
};

test('the values of a row are its table form read in LOG_COLUMNS order', () => {
  const table = toLogTable(row);
  assert.deepEqual(
    logValues(row),
    LOG_COLUMNS.map((c) => table[c]),
  );
});

test('a journal line is one line that gives back the row’s values and the row as stored', () => {
  const line = logLine(row);
  assert.ok(!line.includes('\n'));
  assert.deepEqual(lineValues(line), logValues(row));
  // What the store would read back: whole milliseconds, the rest as written.
  assert.deepEqual(lineRow(line), { ...row, latencyMs: 13, ttfbMs: 3 });
});

test('lines of older versions are read too: a row object, or fewer columns than today', () => {
  // Before lines were positional, the journal held the row as an object.
  assert.deepEqual(lineValues(JSON.stringify(row)), logValues(row));
  // A version from before the cache columns: the missing ones take their defaults.
  const older = logValues(row).slice(0, LOG_COLUMNS.indexOf('cache'));
  const values = lineValues(JSON.stringify(older));
  assert.equal(values.length, LOG_COLUMNS.length);
  assert.deepEqual(values.slice(0, older.length), older);
  const at = (c: (typeof LOG_COLUMNS)[number]) => values[LOG_COLUMNS.indexOf(c)];
  assert.equal(at('cache'), null);
  assert.equal(at('replay_of'), null);
  assert.equal(at('saved_cost_usd'), 0);
  assert.equal(at('cache_shadow_match'), null);
  // A version from before the guardrail column: the call had no verdict as far as the log knows.
  const beforeGuardrails = logValues(row).slice(0, LOG_COLUMNS.indexOf('guardrail_action'));
  const read = lineValues(JSON.stringify(beforeGuardrails));
  assert.equal(read[LOG_COLUMNS.indexOf('guardrail_action')], null);
  assert.equal(lineRow(JSON.stringify(beforeGuardrails)).guardrailAction, undefined);
});

test('a line cut short by a kill does not parse', () => {
  const line = logLine(row);
  assert.throws(() => lineValues(line.slice(0, 40)), SyntaxError);
  assert.throws(() => lineRow(line.slice(0, 40)), SyntaxError);
});
