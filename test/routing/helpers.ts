// Builders shared by the routing unit tests: request facts, plan contexts and scripted attempts.
import type { CallSignal } from '../../src/ir/call-signal.ts';
import type { AttemptOutcome } from '../../src/ir/outcome.ts';
import type { ChatRequest } from '../../src/ir/types.ts';
import { lookupModel } from '../../src/providers/catalog/index.ts';
import { HealthTracker } from '../../src/routing/health.ts';
import type { PlanContext, RequestFacts } from '../../src/routing/types.ts';

export function ir(text = 'hello', extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: '@cfg',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    params: { maxTokens: 64 },
    stream: false,
    ...extra,
  };
}

export function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return { family: 'alpha', ir: ir(), tags: {}, metadata: {}, headers: {}, estimatedTokens: 10, ...over };
}

export function ctx(over: Partial<PlanContext> = {}): PlanContext {
  return {
    req: facts(),
    slug: 'cfg',
    lookupModel,
    health: new HealthTracker(),
    random: Math.random,
    now: Date.now(),
    ...over,
  };
}

export function okOutcome(text: string, stopReason: 'end_turn' | 'max_tokens' = 'end_turn'): AttemptOutcome {
  return {
    ok: true,
    kind: 'json',
    body: { text },
    usage: { input: 10, output: 5 },
    stopReason,
    text,
    ttfbMs: 1,
  };
}

export function failOutcome(
  status: number,
  kind: 'rate_limit' | 'server' | 'invalid_request' | 'timeout' = 'server',
): AttemptOutcome {
  return { ok: false, error: { status, kind, message: `failed with ${status}`, retryable: status >= 429 } };
}

/** Resolves when the signal aborts, like an upstream that never answers. */
export function hang(signal: CallSignal): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    signal.addEventListener('abort', () => {
      const timedOut = signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
      resolve(timedOut ? failOutcome(504, 'timeout') : failOutcome(499, 'server'));
    });
  });
}
