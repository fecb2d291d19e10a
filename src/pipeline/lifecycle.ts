// The life of one proxy call, shared by every flow (chat, embeddings, token counts, pass-through):
// the call object is made in one place, features keep their state for it in typed slots, work a
// feature adds for the end of the call runs exactly once, a call held past its answer says so when
// the answer goes out, and the call ends in a record that the afterResponse hooks see. See hooks.ts
// for the order features run in.

import type { GatewayError } from '../errors/gateway-error.ts';
import { readSvcHeaders } from '../families/shared/svc-headers.ts';
import type { PipelineDeps } from './deps.ts';
import { runAfterResponse } from './hooks.ts';
import { type CallRecord, callRecord, type RecordParts } from './record.ts';
import type { CallKind, EndWork, HoldWork, PipelineReply, ProxyCall, ProxyInput } from './types.ts';

export function newCall(input: ProxyInput, kind: CallKind): ProxyCall {
  const m = (input.body as { model?: unknown } | null)?.model;
  // Every field written here, in one literal, so each call object has the same shape from the start.
  return {
    codec: input.codec,
    principal: input.principal,
    requestId: input.requestId,
    body: input.body,
    rawBody: input.rawBody,
    headers: input.headers,
    signal: input.signal,
    dryRun: input.dryRun,
    replayOf: input.replayOf,
    batchItem: input.batchItem,
    kind,
    hdr: readSvcHeaders(input.headers),
    started: performance.now(),
    createdAt: Date.now(),
    modelRequested: typeof m === 'string' ? m : '',
    chat: undefined,
    svc: undefined,
    endWork: undefined,
    holdWork: undefined,
    replyHeaders: undefined,
    hookTrace: undefined,
    slots: undefined,
  };
}

/**
 * A feature's own place on a call, typed by its key: the pipeline carries slots without knowing what
 * is in them, and only the feature holding the key reads or writes its value.
 */
export interface CallSlot<T> {
  readonly name: string;
  /** Never set: it only carries T, so that slotOf and setSlot agree on the value's type. */
  readonly type?: T;
}

export function callSlot<T>(name: string): CallSlot<T> {
  return { name };
}

export function slotOf<T>(call: ProxyCall, slot: CallSlot<T>): T | undefined {
  // The key's type parameter is the only writer's type (setSlot below), so the value is a T.
  return call.slots?.get(slot) as T | undefined;
}

export function setSlot<T>(call: ProxyCall, slot: CallSlot<T>, value: T): void {
  call.slots ??= new Map();
  call.slots.set(slot, value);
}

/**
 * The one way to add work for the end of a call (give back a rate-limit slot, settle a budget
 * reservation, keep an answer): it runs once, with the call's record or undefined when the call
 * ended without one, before the afterResponse hooks. Work runs in reverse order of adding, so what
 * a later hook took is given back before what an earlier one took; one failing does not stop the next.
 */
export function atCallEnd(call: ProxyCall, work: EndWork): void {
  const list = call.endWork;
  if (list === undefined) call.endWork = [work];
  else list.push(work);
}

/** Runs what features added for the end of the call (once), e.g. when it ends without a record. */
export function endCall(deps: PipelineDeps, call: ProxyCall, record?: CallRecord): void {
  const list = call.endWork;
  if (list === undefined) return;
  call.endWork = undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    try {
      list[i](record);
    } catch (err) {
      deps.onHookError(err);
    }
  }
}

/**
 * Work for the moment a call is answered but not ended. Some calls are held past their answer: a
 * background response's create call keeps its record (and what hooks took for it) until the response
 * completes, which may be hours later, on another instance, or never here. Such a call runs this work
 * once, as its answer goes out (`holdCall`); a call that ends when it is answered never runs it.
 */
export function atHold(call: ProxyCall, work: HoldWork): void {
  const list = call.holdWork;
  if (list === undefined) call.holdWork = [work];
  else list.push(work);
}

/**
 * The call's answer has gone out but the call goes on: runs the work added with `atHold`, once, in
 * the order added, with the record as it stands now. The call still ends later with `finish`.
 */
export function holdCall(deps: PipelineDeps, call: ProxyCall, parts: RecordParts): void {
  const list = call.holdWork;
  if (list === undefined) return;
  call.holdWork = undefined;
  const record = callRecord(call, parts);
  for (const work of list) {
    try {
      work(record);
    } catch (err) {
      deps.onHookError(err);
    }
  }
}

export function finish(deps: PipelineDeps, call: ProxyCall, record: CallRecord): void {
  endCall(deps, call, record);
  call.batchItem?.onRecord(record);
  if (deps.hooks.afterResponse.length > 0) runAfterResponse(deps.hooks, record, deps.onHookError);
}

/** The answer's headers with those hooks added (rate-limit state, what a feature says about the call). */
export function withCallHeaders(call: ProxyCall, headers: Record<string, string>): Record<string, string> {
  return call.replyHeaders ? Object.assign(headers, call.replyHeaders) : headers;
}

/** Adds a header to the call's answer, success or refusal. */
export function addReplyHeader(call: ProxyCall, name: string, value: string): void {
  if (call.replyHeaders === undefined) call.replyHeaders = { [name]: value };
  else call.replyHeaders[name] = value;
}

/** Several headers at once (undefined for none), added like addReplyHeader's. */
export function addReplyHeaders(call: ProxyCall, headers: Record<string, string> | undefined): void {
  if (headers === undefined) return;
  if (call.replyHeaders === undefined) call.replyHeaders = headers;
  else Object.assign(call.replyHeaders, headers);
}

/** A refused or failed call, in the called family's error shape. */
export function errorReply(
  call: ProxyCall,
  e: GatewayError,
  deps: PipelineDeps,
  parts: RecordParts,
  headers: Record<string, string> = {},
): PipelineReply {
  parts.status = e.status;
  if (parts.error === null) parts.error = { message: e.message, code: e.wireCode };
  withCallHeaders(call, headers);
  return {
    kind: 'json',
    status: e.status,
    headers: e.headers ? Object.assign(headers, e.headers) : headers,
    body: call.codec.errorBody(e),
    done: () => finish(deps, call, callRecord(call, parts)),
  };
}
