// The family-beta conformance driver: neutral request -> `POST /beta/v1/messages` (raw fetch, so status,
// headers and SSE records are seen exactly as sent) -> neutral outcome. Every 200 stream is also checked
// by the event-sequence validator, so the conformance run doubles as a stream-grammar check per vendor.
import { Agent, fetch } from 'undici';
import { IMAGE_URL, type NeutralMessage, type NeutralRequest, PNG_1PX } from '../conformance/cases.ts';
import type { DriverCall, FamilyDriver, NeutralOutcome } from '../conformance/runner.ts';
import type { ProxyEnv } from '../helpers/proxy-env.ts';
import { parseSse, validateEventSequence } from './event-sequence.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function userBlocks(content: NeutralMessage['content']): Obj[] {
  if (content === undefined) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((p) => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    const source =
      p.source === 'data'
        ? { type: 'base64', media_type: 'image/png', data: PNG_1PX }
        : { type: 'url', url: IMAGE_URL };
    return { type: 'image', source };
  });
}

function blocksOf(m: NeutralMessage): { role: 'user' | 'assistant'; blocks: Obj[] } {
  if (m.role === 'tool') {
    const text = typeof m.content === 'string' ? m.content : userBlocks(m.content);
    return { role: 'user', blocks: [{ type: 'tool_result', tool_use_id: m.toolCallId, content: text }] };
  }
  const blocks = userBlocks(m.content);
  for (const c of m.toolCalls ?? [])
    blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) as unknown });
  return { role: m.role, blocks };
}

/** Neutral -> messages body; consecutive same-role turns (tool replies, then user) merge into one. */
export function betaBody(req: NeutralRequest, model: string, stream: boolean): Obj {
  const messages: Array<{ role: string; content: Obj[] }> = [];
  for (const m of req.messages) {
    const { role, blocks } = blocksOf(m);
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  const body: Obj = { model, max_tokens: req.maxTokens, messages };
  if (req.system) body.system = req.system;
  if (req.tools)
    body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  if (stream) body.stream = true;
  return body;
}

const FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
};

function emptyOutcome(status: number, headers: Headers): NeutralOutcome {
  return {
    status,
    headers,
    text: null,
    toolCalls: [],
    finishReason: null,
    usage: null,
    error: null,
    streamError: false,
    aborted: false,
  };
}

function errorOf(v: unknown): NeutralOutcome['error'] {
  if (!isObj(v) || v.type !== 'error' || !isObj(v.error)) return null;
  const e = v.error;
  return { message: typeof e.message === 'string' ? e.message : '', type: String(e.type), code: null };
}

/** Folds a finished message's content (JSON answer or reassembled stream) into the outcome. */
function fromContent(out: NeutralOutcome, content: Obj[]): void {
  let text: string | null = null;
  for (const b of content) {
    if (b.type === 'text') text = (text ?? '') + String(b.text);
    if (b.type === 'tool_use')
      out.toolCalls.push({ id: String(b.id ?? ''), name: String(b.name), arguments: JSON.stringify(b.input) });
  }
  out.text = text;
}

function fromJson(out: NeutralOutcome, body: unknown): void {
  out.error = errorOf(body);
  if (!isObj(body) || body.type !== 'message' || !Array.isArray(body.content)) return;
  fromContent(out, body.content.filter(isObj));
  out.finishReason = FINISH[String(body.stop_reason)] ?? String(body.stop_reason);
  const u = isObj(body.usage) ? body.usage : {};
  out.usage = { input: Number(u.input_tokens ?? 0), output: Number(u.output_tokens ?? 0) };
}

function fromStream(out: NeutralOutcome, sse: string): void {
  const summary = validateEventSequence(sse, { allowError: true });
  const blocks: Obj[] = [];
  const json: string[] = [];
  let input = 0;
  for (const r of parseSse(sse)) {
    const d = r.data ?? {};
    if (r.event === 'message_start' && isObj(d.message) && isObj(d.message.usage))
      input = Number(d.message.usage.input_tokens ?? 0);
    // Upstreams that report usage only at the end (OpenAI, Converse) land it in message_delta.
    if (r.event === 'message_delta' && isObj(d.usage) && typeof d.usage.input_tokens === 'number')
      input = d.usage.input_tokens;
    if (r.event === 'content_block_start' && isObj(d.content_block)) {
      blocks.push({ ...d.content_block });
      json.push('');
    }
    if (r.event === 'content_block_delta' && isObj(d.delta)) {
      const i = Number(d.index);
      if (d.delta.type === 'text_delta') blocks[i].text = String(blocks[i].text ?? '') + String(d.delta.text);
      if (d.delta.type === 'input_json_delta') json[i] += String(d.delta.partial_json);
    }
  }
  blocks.forEach((b, i) => {
    if (b.type === 'tool_use') b.input = json[i] === '' ? {} : (JSON.parse(json[i]) as unknown);
  });
  fromContent(out, blocks);
  if (summary.error) {
    out.streamError = true;
    out.error = { message: summary.error.message, type: summary.error.type, code: null };
    return;
  }
  out.finishReason = FINISH[String(summary.stopReason)] ?? summary.stopReason;
  out.usage = { input, output: summary.outputTokens };
}

async function send(env: ProxyEnv, c: { request: NeutralRequest }, call: DriverCall): Promise<NeutralOutcome> {
  const ac = new AbortController();
  const headers: Record<string, string> = { 'x-api-key': env.gw.adminKey, 'content-type': 'application/json' };
  if (call.providerKey) headers['x-svc-provider-key'] = call.providerKey;
  // An aborted fetch keeps its socket until the server finishes; a private agent destroyed on abort
  // really hangs up, so the gateway sees the disconnect and its shutdown is not held by the socket.
  const agent = call.abortAfterMs === undefined ? undefined : new Agent();
  const abort = () => {
    ac.abort();
    void agent?.destroy();
  };
  const timer = call.abortAfterMs === undefined ? undefined : setTimeout(abort, call.abortAfterMs);
  try {
    const res = await fetch(`${env.gw.url}/beta/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(betaBody(c.request, call.model, call.stream)),
      signal: ac.signal,
      dispatcher: agent,
    });
    const out = emptyOutcome(res.status, res.headers);
    const raw = await res.text();
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) fromStream(out, raw);
    else fromJson(out, raw ? JSON.parse(raw) : null);
    return out;
  } catch (err) {
    if (ac.signal.aborted) return { ...emptyOutcome(0, new Headers()), aborted: true };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

export const betaDriver: FamilyDriver = {
  family: 'beta',
  unsupported: (c) =>
    c.request.responseFormat ? 'the messages wire has no response_format (JSON modes are alpha-only)' : null,
  send,
};
