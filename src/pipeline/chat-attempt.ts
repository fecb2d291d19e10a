// One attempt of a chat call against one upstream target: pass-through when the upstream speaks the
// caller's family, translation through the IR otherwise. Returns a prepared outcome; nothing is
// written to the caller here, so a routing strategy can still fall back to another target.
import type { FamilyCodec } from '../families/shared/codec.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { AttemptOutcome } from '../ir/outcome.ts';
import type { ChatResponse, EncodeWarning, UpstreamErrorInfo } from '../ir/types.ts';
import { attemptFailure } from '../providers/attempt-failure.ts';
import { sendUpstream } from '../providers/http.ts';
import { chatAdapterFor } from '../providers/registry.ts';
import type { ChatAdapter, HttpRequestSpec, Target } from '../providers/types.ts';
import { isRecord } from '../util/json.ts';
import type { ChatCall, RoutedTarget } from './call.ts';
import { checkJsonAgainstSchema } from './json-schema.ts';
import { openStreamRelay } from './stream-relay.ts';

export function isPassthrough(codec: FamilyCodec, adapter: ChatAdapter): boolean {
  return adapter.wire === codec.nativeWire;
}

export async function attemptChat(call: ChatCall, target: RoutedTarget, signal: CallSignal): Promise<AttemptOutcome> {
  const adapter = chatAdapterFor(target.vendor, target.model);
  // A guarded call's request was rewritten and its answer must be checked: never the raw bytes.
  const passthrough = call.guard?.translate !== true && isPassthrough(call.codec, adapter);
  const t: Target = {
    vendor: target.vendor,
    model: target.model,
    credential: target.credential,
    // Family headers (anthropic-version/-beta) only mean something to the family's native wire.
    headers: passthrough ? call.upstreamHeaders : undefined,
  };
  const started = performance.now();
  try {
    // A translated request says what it could not carry; a pass-through carries everything.
    const spec: HttpRequestSpec & { warnings?: readonly EncodeWarning[] } = passthrough
      ? await adapter.rawChatRequest(
          call.codec.passthroughBody(call.body, target.model, {
            stream: call.ir.stream,
            includeUsage: call.includeUsage,
            userOverride: call.userOverride,
            rawBody: call.rawBody,
          }),
          t,
          call.ir.stream,
        )
      : await adapter.chatRequest({ ...call.ir, model: target.model }, t);
    call.onSend?.(target, spec);
    const res = await sendUpstream(spec, { signal, deadlines: call.deadlines });
    const ttfbMs = performance.now() - started;
    if (res.status < 200 || res.status >= 300) {
      const text = await res.body.text();
      return { ok: false, error: adapter.decodeError(res.status, text, res.headers) };
    }
    if (call.ir.stream) {
      const relay = openStreamRelay({ call, adapter, target: t, passthrough, body: res.body });
      return { ok: true, kind: 'stream', relay, ttfbMs, warnings: spec.warnings };
    }
    const rawText = await res.body.text();
    const raw: unknown = JSON.parse(rawText);
    const ir = adapter.decodeChatResponse(raw, t);
    const text = answerText(ir);
    const schemaError = checkSchemaFallback(call, adapter, text);
    if (schemaError) return { ok: false, error: schemaError };
    // One literal per shape (no spread of a shared part): copying an object per call cost more
    // than the rest of this function's own work on a pass-through answer.
    const passthroughText = passthrough && isRecord(raw) ? rawText : undefined;
    return {
      ok: true,
      kind: 'json',
      body:
        passthroughText !== undefined
          ? (raw as Record<string, unknown>)
          : call.codec.encode(ir, { requestId: call.requestId, created: call.created, model: ir.model }),
      bodyText: passthroughText,
      usage: ir.usage,
      stopReason: ir.stopReason,
      text,
      ir,
      ttfbMs,
      warnings: spec.warnings,
    };
  } catch (err) {
    return { ok: false, error: attemptFailure(err) };
  }
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
