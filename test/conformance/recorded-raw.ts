// The wire promises an SDK does not check, over the same recordings: on alpha, the chunk that says
// `finish_reason: tool_calls` carries the complete calls (SPEC: arguments accumulated, not left in
// earlier deltas), and the stream ends with `data: [DONE]`; on beta, the stream follows the Messages
// event grammar record by record (test/beta/event-sequence.ts). Requests are the conformance
// drivers' own bodies.
import { betaBody } from '../beta/conformance-driver.ts';
import { parseSse, type SequenceSummary, validateEventSequence } from '../beta/event-sequence.ts';
import { alphaBody } from './alpha-driver.ts';
import type { NeutralRequest } from './cases.ts';
import type { SaidToolCall } from './recorded-oracle.ts';
import type { GatewayClientOptions, RecordedCall } from './recorded-sdk.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function neutral(call: RecordedCall): NeutralRequest {
  return {
    messages: [{ role: 'user', content: 'Answer as you did when this was recorded.' }],
    tools: call.tools.map((name) => ({ name, description: name, parameters: { type: 'object', properties: {} } })),
    maxTokens: 2048,
  };
}

async function post(gw: GatewayClientOptions, path: string, headers: Record<string, string>, body: Obj) {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

export interface AlphaWire {
  status: number;
  finish: string | null;
  /** The calls on the finish chunk itself. */
  finishChunkCalls: SaidToolCall[];
  endsWithDone: boolean;
}

export async function alphaWire(gw: GatewayClientOptions, call: RecordedCall): Promise<AlphaWire> {
  const res = await post(
    gw,
    '/alpha/v1/chat/completions',
    { authorization: `Bearer ${gw.key}` },
    alphaBody(neutral(call), call.model, true),
  );
  const out: AlphaWire = { status: res.status, finish: null, finishChunkCalls: [], endsWithDone: false };
  const data = parseSse(res.text).map((r) => r.raw.replace(/^data: ?/, ''));
  out.endsWithDone = data[data.length - 1] === '[DONE]';
  for (const line of data) {
    if (line === '[DONE]') continue;
    const chunk: unknown = JSON.parse(line);
    const choice: unknown = isObj(chunk) && Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isObj(choice) || typeof choice.finish_reason !== 'string') continue;
    out.finish = choice.finish_reason;
    const delta = isObj(choice.delta) ? choice.delta : {};
    for (const c of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      if (isObj(c) && isObj(c.function))
        out.finishChunkCalls.push({
          id: String(c.id ?? ''),
          name: String(c.function.name),
          input: JSON.parse(String(c.function.arguments)) as unknown,
        });
    }
  }
  return out;
}

export async function betaWire(gw: GatewayClientOptions, call: RecordedCall): Promise<SequenceSummary> {
  const body = betaBody(neutral(call), call.model, true);
  if (call.thinking) body.thinking = { type: 'enabled', budget_tokens: 1024 };
  const res = await post(gw, '/beta/v1/messages', { 'x-api-key': gw.key }, body);
  if (res.status !== 200 || !res.type.includes('text/event-stream'))
    throw new Error(`beta stream answered ${res.status} ${res.type}: ${res.text.slice(0, 300)}`);
  return validateEventSequence(res.text, { allowError: false });
}
