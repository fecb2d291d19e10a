// A stored answer served again, in the called family's shape: a JSON body from the family's encoder,
// or a stream replayed through the family's stream encoder (SPEC "Semantic cache behavior" 3), so a
// hit is as well formed as a live answer and carries this call's id, not the original's.

import type { JsonOutcome, StreamOutcome, StreamSummary } from '../ir/outcome.ts';
import { responseEvents } from '../ir/stream-replay.ts';
import type { ChatResponse } from '../ir/types.ts';
import type { ChatCall } from '../pipeline/call.ts';
import { answerText } from '../pipeline/chat-attempt.ts';
import { guardedReplay } from '../pipeline/guard.ts';

/** The stored usage is what the original call paid for; a hit reports it (its cost is 0). */
export function hitOutcome(call: ChatCall, res: ChatResponse): JsonOutcome | StreamOutcome {
  const ids = { requestId: call.requestId, created: call.created, model: res.model };
  if (!call.ir.stream) {
    return {
      ok: true,
      kind: 'json',
      body: call.codec.encode(res, ids),
      usage: res.usage,
      stopReason: res.stopReason,
      text: answerText(res),
      ir: res,
      ttfbMs: 0,
    };
  }
  return {
    ok: true,
    kind: 'stream',
    ttfbMs: 0,
    relay: {
      async run(sink, signal) {
        const summary: StreamSummary = {
          usage: { ...res.usage },
          text: '',
          aborted: false,
          stopReason: res.stopReason,
        };
        const encoder = call.codec.streamEncoder(ids, call.includeUsage);
        // One write: the whole answer is known, and a cached stream's point is to arrive at once.
        let out = '';
        // A guarded call's answer is restored and checked like a live one (the entry holds placeholders).
        const step = await guardedReplay(call.guard, responseEvents(res));
        for (const ev of step.events) for (const rec of encoder.push(ev)) out += rec;
        if (step.blocked) out += call.codec.errorRecord(step.blocked);
        else for (const rec of encoder.end()) out += rec;
        if (signal.aborted) {
          summary.aborted = true;
          return summary;
        }
        summary.firstByteMs = 0;
        summary.text = answerText(res);
        if (!sink.write(out)) await sink.drain();
        return summary;
      },
    },
  };
}

/** Whitespace, case and trailing punctuation do not make two answers different (shadow-mode matching). */
export function normalizedAnswer(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!?。]+$/u, '')
    .trim();
}

/**
 * Whether a fresh answer agrees with the cached one: the same text (normalised), or for answers that
 * call tools, the same calls with the same arguments (tool-call ids differ per upstream call).
 */
export function sameAnswer(fresh: ChatResponse, cached: ChatResponse): boolean {
  const tools = (r: ChatResponse) =>
    JSON.stringify(r.content.flatMap((b) => (b.type === 'tool_use' ? [[b.name, b.input]] : [])));
  return normalizedAnswer(answerText(fresh)) === normalizedAnswer(answerText(cached)) && tools(fresh) === tools(cached);
}
