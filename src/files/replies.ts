// What a files endpoint hands the HTTP layer to write, and the one log row each call leaves: the row
// is written by `done`, which the HTTP layer calls just before a JSON answer goes out (as the
// pipeline does) and once a byte stream has ended.
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { type EndpointCall, type EndpointOutcome, recordEndpointCall } from '../pipeline/endpoint-record.ts';
import type { LinkedSpan } from '../ports/trace-links.ts';
import type { FilesAnswer } from '../providers/capabilities.ts';
import { parseBoundedJson } from '../util/json.ts';

/** JSON to serialize, text passed on as the upstream wrote it, or bytes streamed through. */
export type ReplyBody = { json: unknown } | { text: string } | { stream: Readable };

export interface FilesReply {
  status: number;
  headers: Record<string, string>;
  body: ReplyBody;
  /** Writes the call's log row (once); `completed` is false for a stream cut short. */
  done(completed: boolean): void;
}

/** What the row keeps beyond the status: never file contents, only what describes them. */
export type Note = Omit<EndpointOutcome, 'status'>;

const JSON_TYPE = 'application/json; charset=utf-8';

export function makeReply(
  deps: PipelineDeps,
  call: EndpointCall,
  status: number,
  headers: Record<string, string>,
  body: ReplyBody,
  note: Note,
): FilesReply {
  let recorded = false;
  return {
    status,
    headers,
    body,
    done(completed) {
      if (recorded) return;
      recorded = true;
      const outcome: EndpointOutcome = completed
        ? { ...note, status }
        : { ...note, status: 499, error: note.error ?? { message: 'client disconnected', code: 'client_closed' } };
      recordEndpointCall(deps, call, outcome);
    },
  };
}

export function jsonReply(
  deps: PipelineDeps,
  call: EndpointCall,
  status: number,
  json: unknown,
  note: Note,
  headers: Record<string, string> = {},
): FilesReply {
  return makeReply(
    deps,
    call,
    status,
    { 'content-type': JSON_TYPE, ...headers },
    { json },
    { ...note, responseBody: json },
  );
}

export function errorReply(deps: PipelineDeps, call: EndpointCall, e: GatewayError, note: Note): FilesReply {
  const body = alphaCodec.errorBody(e);
  return makeReply(
    deps,
    call,
    e.status,
    { 'content-type': JSON_TYPE, ...e.headers },
    { json: body },
    { ...note, error: { message: e.message, code: e.wireCode }, responseBody: body },
  );
}

/**
 * An upstream's answer passed on as it came (status, content type, body text): success or refusal
 * alike, so an oversize upload gets the upstream's own error (SPEC "Errors").
 */
export async function passOn(
  deps: PipelineDeps,
  call: EndpointCall,
  res: FilesAnswer,
  note: Note,
  headers: Record<string, string>,
): Promise<FilesReply> {
  const text = await res.body.text();
  const type = res.headers['content-type'];
  const parsed = parseBoundedJson(text);
  const full: Note = { ...note, responseBody: parsed.ok ? parsed.value : text };
  if (res.status >= 400) full.error = res.decodeError(text);
  const out = { ...headers, 'content-type': typeof type === 'string' ? type : JSON_TYPE };
  return makeReply(deps, call, res.status, out, { text }, full);
}

/** The failure a thrown error stands for, when the caller should see it; undefined for a fault. */
export function asGatewayError(err: unknown, signal: CallSignal): GatewayError | undefined {
  if (signal.aborted) return new GatewayError('client_closed');
  return err instanceof GatewayError ? err : undefined;
}

const METHODS: Record<string, string> = { file_upload: 'POST', file_delete: 'DELETE' };

/** The HTTP method of a files endpoint call, for its span. */
export const methodOf = (requestType: string): string => METHODS[requestType] ?? 'GET';

/** The reply answers with the span's context and ends the span when its row is written. */
export function tracedReply(reply: FilesReply, span: LinkedSpan, requestType: string, requestId: string): FilesReply {
  const done = reply.done;
  let ended = false;
  reply.headers.traceparent = span.traceparent;
  reply.done = (completed) => {
    done(completed);
    if (ended) return;
    ended = true;
    const status = completed ? reply.status : 499;
    const attrs = {
      'http.request.method': methodOf(requestType),
      'http.response.status_code': status,
      'switchyard.request_id': requestId,
    };
    span.end(attrs, status >= 400 ? String(status) : undefined);
  };
  return reply;
}
