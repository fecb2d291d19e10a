// The request log as a pipeline hook: every finished proxy call becomes one row, queued right behind
// the response and written in batches by the sink.
import type { AfterResponseHook } from '../pipeline/hooks.ts';
import type { CallRecord } from '../pipeline/record.ts';
import type { RequestLogRow } from '../store/request-logs.ts';
import { isEmptyObject } from '../util/json.ts';
import { withKeyMetadata } from '../util/key-metadata.ts';
import { isoAt } from '../util/time.ts';
import type { RequestLogSink } from './writer.ts';

/** Bodies are kept up to `maxBytes` characters; a cut body ends with a marker saying how long it was. */
function bodyText(v: unknown, maxBytes: number): string | null {
  if (v === null || v === undefined) return null;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  if (text.length <= maxBytes) return text;
  return `${text.slice(0, maxBytes)}…[truncated: ${text.length} characters]`;
}

/** `keyMetadata`: the calling key's metadata, logged among the tags as `key_metadata:<name>`. */
export function toStoreRow(
  r: CallRecord,
  keepBodies: boolean,
  maxBodyBytes = 64 * 1024,
  keyMetadata: Readonly<Record<string, string>> | null = null,
): RequestLogRow {
  const tags = withKeyMetadata(r.tags, keyMetadata);
  const row: RequestLogRow = {
    id: r.id,
    requestType: r.requestType,
    orgId: r.orgId,
    projectId: r.projectId,
    apiKeyId: r.keyId,
    endUser: r.endUser,
    tags: isEmptyObject(tags) ? null : { ...tags },
    traceId: r.traceId,
    conversationId: r.conversationId,
    modelRequested: r.modelRequested,
    modelUsed: r.modelUsed,
    provider: r.vendor,
    credentialId: r.credentialId,
    statusCode: r.status,
    latencyMs: Math.round(r.latencyMs * 100) / 100,
    ttfbMs: r.ttfbMs === null ? null : Math.round(r.ttfbMs * 100) / 100,
    inputTokens: r.usage.input,
    outputTokens: r.usage.output,
    cacheReadTokens: r.usage.cacheRead ?? 0,
    cacheCreationTokens: r.usage.cacheWrite ?? 0,
    costUsd: r.costUsd,
    error: r.error,
    decisionTrace: r.trace,
    requestBody: keepBodies ? bodyText(r.requestBody, maxBodyBytes) : null,
    responseBody: keepBodies ? bodyText(r.responseBody, maxBodyBytes) : null,
    createdAt: isoAt(r.createdAt),
    replayOf: r.replayOf,
    // A feature's columns when it noted nothing (not consulted); its note below fills them in.
    cache: null,
    savedCostUsd: 0,
    cacheSimilarity: null,
    cacheShadowMatch: null,
  };
  // Each note's fields are columns of the row, named as the row names them.
  for (const feature in r.features) Object.assign(row, r.features[feature]);
  return row;
}

/** `keepBodies(projectId)`: the project's `settings.log_bodies`; `keyMetadata(keyId)`: the key's metadata. */
export function requestLogHook(
  sink: RequestLogSink,
  keepBodies: (projectId: string | null) => boolean,
  maxBodyBytes: number,
  keyMetadata: (keyId: string) => Readonly<Record<string, string>> | null = () => null,
): AfterResponseHook {
  // Runs in the task that writes the answer, before the write for JSON answers: the journal append
  // is synchronous, so a caller who has its answer finds its row even after a kill -9. (Deferring
  // it, to the next loop turn or to a microtask after the socket write, lost last rows.)
  return (record) => {
    // A batch's items are logged as the batch (one row with their summed cost), not one by one.
    if (record.batchId === undefined)
      sink.enqueue(toStoreRow(record, keepBodies(record.projectId), maxBodyBytes, keyMetadata(record.keyId)));
  };
}
