// One attempt of a chat call against one upstream target: pass-through for same-family wires,
// translation through the IR otherwise. Returns a prepared outcome; nothing is written to the client
// here, so a routing strategy can still fall back to another target after a failure.
import { stripForPassthrough } from '../families/alpha/codec/decode-request.ts';
import { encodeAlphaChat } from '../families/alpha/codec/encode-response.ts';
import { stripBetaForPassthrough } from '../families/beta/codec/decode-request.ts';
import { encodeBetaMessage } from '../families/beta/codec/encode-response.ts';
import type { ChatRequest, ChatResponse, StopReason, UpstreamErrorInfo, Usage } from '../ir/types.ts';
import { sendUpstream, UpstreamTransportError } from '../providers/http.ts';
import { chatAdapterFor } from '../providers/registry.ts';
import type { ChatAdapter, Credential, Target, VendorId } from '../providers/types.ts';
import { isRecord } from '../util/json.ts';
import { checkJsonAgainstSchema } from './json-schema.ts';
import { openStreamRelay, type StreamRelay } from './stream-relay.ts';

export type Family = 'alpha' | 'beta';

export interface ChatCall {
  family: Family;
  ir: ChatRequest;
  /** The caller's parsed body, used for same-family pass-through. */
  body: Record<string, unknown>;
  requestId: string;
  /** Unix seconds, for alpha `created`. */
  created: number;
  /** Alpha `stream_options.include_usage`. */
  includeUsage: boolean;
  /** `X-Svc-User-Id` overrides the body's `user`. */
  userOverride?: string;
  /** Upstream headers decided by the family (beta: anthropic-version / anthropic-beta). */
  upstreamHeaders?: Record<string, string>;
}

export interface ChatTarget {
  vendor: VendorId;
  vendorAsSent: string;
  /** Upstream model id. */
  model: string;
  credentialId?: string;
  credential: Credential;
}

export interface JsonOutcome {
  ok: true;
  kind: 'json';
  /** Response body in the caller's wire shape. */
  body: Record<string, unknown>;
  /** Pass-through only: the upstream's own text of `body`, sent as-is instead of serialized again. */
  bodyText?: string;
  usage: Usage;
  stopReason: StopReason;
  /** Concatenated answer text (acceptance checks, cache). */
  text: string;
  ir?: ChatResponse;
  ttfbMs: number;
}

export interface StreamOutcome {
  ok: true;
  kind: 'stream';
  relay: StreamRelay;
  ttfbMs: number;
}

export interface FailedOutcome {
  ok: false;
  error: UpstreamErrorInfo;
}

export type AttemptOutcome = JsonOutcome | StreamOutcome | FailedOutcome;

export function isPassthrough(family: Family, adapter: ChatAdapter): boolean {
  return (family === 'alpha' && adapter.wire === 'openai') || (family === 'beta' && adapter.wire === 'anthropic');
}

export async function attemptChat(call: ChatCall, target: ChatTarget, signal: AbortSignal): Promise<AttemptOutcome> {
  const adapter = chatAdapterFor(target.vendor, target.model);
  const passthrough = isPassthrough(call.family, adapter);
  const t: Target = {
    vendor: target.vendor,
    model: target.model,
    credential: target.credential,
    // Family headers (anthropic-version/-beta) only mean something to the family's native wire.
    headers: passthrough ? call.upstreamHeaders : undefined,
  };
  const started = performance.now();
  try {
    const spec = passthrough
      ? await adapter.rawChatRequest(passthroughBody(call, target.model), t, call.ir.stream)
      : await adapter.chatRequest({ ...call.ir, model: target.model }, t);
    const res = await sendUpstream(spec, { signal });
    const ttfbMs = performance.now() - started;
    if (res.status < 200 || res.status >= 300) {
      const text = await res.body.text();
      return { ok: false, error: adapter.decodeError(res.status, text, res.headers) };
    }
    if (call.ir.stream) {
      const relay = openStreamRelay({
        call,
        adapter,
        target: t,
        passthrough,
        body: res.body,
        framing: adapter.streamFraming,
      });
      return { ok: true, kind: 'stream', relay, ttfbMs };
    }
    const rawText = await res.body.text();
    const raw: unknown = JSON.parse(rawText);
    const ir = adapter.decodeChatResponse(raw, t);
    const text = answerText(ir);
    const schemaError = checkSchemaFallback(call, adapter, text);
    if (schemaError) return { ok: false, error: schemaError };
    const common = { ok: true, kind: 'json', usage: ir.usage, stopReason: ir.stopReason, text, ir, ttfbMs } as const;
    if (passthrough && isRecord(raw)) return { ...common, body: raw, bodyText: rawText };
    return { ...common, body: encodeFor(call, ir) };
  } catch (err) {
    if (err instanceof UpstreamTransportError) return { ok: false, error: err.info };
    if (err instanceof SyntaxError) {
      return {
        ok: false,
        error: { status: 502, kind: 'server', message: 'upstream sent a malformed body', retryable: true },
      };
    }
    throw err;
  }
}

function passthroughBody(call: ChatCall, model: string): string {
  if (call.family === 'beta') return stripBetaForPassthrough(call.body, model);
  // Ask for usage on streams even when the caller did not, so that cost and logs are exact; the relay
  // hides the extra usage chunk from callers who did not ask for it.
  const body =
    call.ir.stream && !call.includeUsage
      ? { ...call.body, stream_options: { ...asRecord(call.body.stream_options), include_usage: true } }
      : call.body;
  return stripForPassthrough(body, model, call.userOverride);
}

function encodeFor(call: ChatCall, ir: ChatResponse): Record<string, unknown> {
  return call.family === 'alpha'
    ? encodeAlphaChat(ir, { id: `chatcmpl-${call.requestId.slice(4)}`, model: ir.model, created: call.created })
    : encodeBetaMessage(ir, { id: `msg_${call.requestId.slice(4)}`, model: ir.model });
}

/** Upstreams without a native schema mode answered in JSON mode: validate before handing the answer out. */
function checkSchemaFallback(call: ChatCall, adapter: ChatAdapter, text: string): UpstreamErrorInfo | undefined {
  const rf = call.ir.params.responseFormat;
  if (rf?.type !== 'json_schema') return undefined;
  if (adapter.wire !== 'anthropic' && adapter.wire !== 'bedrock-converse') return undefined;
  const check = checkJsonAgainstSchema(text, rf.schema);
  if (check.ok) return undefined;
  return {
    status: 502,
    kind: 'server',
    code: 'json_schema_validation_failed',
    message: check.message,
    retryable: false,
  };
}

export function answerText(ir: ChatResponse): string {
  let s = '';
  for (const b of ir.content) if (b.type === 'text') s += b.text;
  return s;
}

function asRecord(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}
