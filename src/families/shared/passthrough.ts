// What both families' same-family pass-through shares: the caller's request bytes edited in place
// (only the model, when nothing else must change), the SSE framing of relayed records, and the
// reading of an upstream's in-stream error.
import type { UpstreamErrorInfo } from '../../ir/types.ts';
import { isRecord } from '../../util/json.ts';
import { spliced, topLevelStringMember } from './json-scan.ts';
import { SVC_PREFIX } from './svc.ts';

/**
 * Whether the body holds anything the gateway strips before a pass-through (`svc:*` keys at the top
 * or in `extra_body`, `metadata`); such a body is rebuilt from its parsed form instead.
 */
export function hasGatewayKeys(body: Record<string, unknown>): boolean {
  for (const key in body) {
    if (key === 'metadata' || key.startsWith(SVC_PREFIX)) return true;
    if (key === 'extra_body' && isRecord(body.extra_body))
      for (const inner in body.extra_body) if (inner.startsWith(SVC_PREFIX)) return true;
  }
  return false;
}

/**
 * The caller's own text with the top-level `model` value replaced; undefined when the text does not
 * have exactly one top-level string `model` (the caller then serializes the parsed body). A repeated
 * key matters: the parsed body holds the last one, so editing any one of them alone could send the
 * upstream a model nobody routed.
 */
export function rawWithModel(raw: string, model: string): string | undefined {
  const at = topLevelStringMember(raw, 'model');
  return at === undefined ? undefined : spliced(raw, at, JSON.stringify(model));
}

/** One relayed record as SSE; a payload the upstream split over several `data:` lines keeps them. */
export function sseRecord(event: string | undefined, data: string): string {
  const lines = data.includes('\n') ? data.replaceAll('\n', '\ndata: ') : data;
  return event === undefined ? `data: ${lines}\n\n` : `event: ${event}\ndata: ${lines}\n\n`;
}

/** An error object an upstream put in its stream, as the gateway's normalized upstream error. */
export function upstreamStreamError(e: Record<string, unknown>): UpstreamErrorInfo {
  const message = typeof e.message === 'string' ? e.message : 'upstream stream error';
  const type = typeof e.type === 'string' ? e.type : '';
  return {
    status: 502,
    kind: type.includes('overloaded') ? 'overloaded' : type.includes('rate') ? 'rate_limit' : 'server',
    message,
    retryable: true,
  };
}
