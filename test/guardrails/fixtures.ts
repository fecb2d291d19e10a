// Small builders for the engine tests: policies with sensible defaults and IR requests/answers.

import type { GuardrailCheck, GuardrailPolicy } from '../../src/guardrails/policy.ts';
import type { ChatRequest, ChatResponse } from '../../src/ir/types.ts';

let seq = 0;

export function policy(checks: GuardrailCheck[], over: Partial<GuardrailPolicy> = {}): GuardrailPolicy {
  seq += 1;
  return {
    id: `gp_${String(seq).padStart(4, '0')}`,
    org_id: 'org_1',
    name: `policy ${seq}`,
    scope: { type: 'org' },
    mode: 'enforce',
    checks,
    created_at: `2026-01-01T00:00:${String(seq % 60).padStart(2, '0')}Z`,
    updated_at: '2026-01-01T00:00:00Z',
    ...over,
  };
}

export function request(user: string | string[], over: Partial<ChatRequest> = {}): ChatRequest {
  const texts = Array.isArray(user) ? user : [user];
  return {
    model: 'gpt-test',
    system: [],
    messages: texts.map((t, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text: t }] })),
    tools: [],
    params: {},
    stream: false,
    ...over,
  };
}

export function answer(text: string): ChatResponse {
  return {
    id: 'msg_1',
    model: 'gpt-test',
    content: [{ type: 'text', text }],
    stopReason: 'end_turn',
    usage: { input: 1, output: 1 },
  };
}

export function userTexts(req: ChatRequest): string[] {
  return req.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
}

export function answerTextOf(res: ChatResponse): string {
  return res.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
}
