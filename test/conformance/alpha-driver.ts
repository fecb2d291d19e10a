// The family-alpha conformance driver: neutral request -> `POST /alpha/v1/chat/completions` (raw fetch,
// so status, headers and SSE records are seen exactly as sent) -> neutral outcome.
import { request } from 'node:http';
import type { ProxyEnv } from '../helpers/proxy-env.ts';
import { type ConformanceCase, IMAGE_URL, type NeutralMessage, type NeutralRequest, PNG_1PX } from './cases.ts';
import type { DriverCall, FamilyDriver, NeutralOutcome } from './runner.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function alphaContent(content: NeutralMessage['content']): unknown {
  if (content === undefined || typeof content === 'string') return content ?? null;
  return content.map((p) =>
    p.type === 'text'
      ? { type: 'text', text: p.text }
      : {
          type: 'image_url',
          image_url: { url: p.source === 'data' ? `data:image/png;base64,${PNG_1PX}` : IMAGE_URL },
        },
  );
}

function alphaMessage(m: NeutralMessage): Obj {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: alphaContent(m.content) };
  const out: Obj = { role: m.role, content: alphaContent(m.content) };
  if (m.toolCalls)
    out.tool_calls = m.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  return out;
}

export function alphaBody(req: NeutralRequest, model: string, stream: boolean): Obj {
  const messages: Obj[] = [];
  if (req.system) messages.push({ role: 'system', content: req.system });
  for (const m of req.messages) messages.push(alphaMessage(m));
  const body: Obj = { model, messages, max_tokens: req.maxTokens };
  if (req.tools)
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  const rf = req.responseFormat;
  if (rf?.type === 'json_object') body.response_format = { type: 'json_object' };
  if (rf?.type === 'json_schema')
    body.response_format = { type: 'json_schema', json_schema: { name: rf.name, schema: rf.schema, strict: true } };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

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
  if (!isObj(v) || !isObj(v.error)) return null;
  const e = v.error;
  return {
    message: typeof e.message === 'string' ? e.message : '',
    type: typeof e.type === 'string' ? e.type : undefined,
    code: typeof e.code === 'string' ? e.code : null,
  };
}

function usageOf(u: unknown): NeutralOutcome['usage'] {
  if (!isObj(u)) return null;
  return { input: Number(u.prompt_tokens ?? 0), output: Number(u.completion_tokens ?? 0) };
}

function fromJson(out: NeutralOutcome, body: unknown): void {
  out.error = errorOf(body);
  if (!isObj(body) || !Array.isArray(body.choices)) return;
  const choice: unknown = body.choices[0];
  if (!isObj(choice) || !isObj(choice.message)) return;
  const msg = choice.message;
  out.text = typeof msg.content === 'string' ? msg.content : null;
  out.finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  for (const c of Array.isArray(msg.tool_calls) ? msg.tool_calls : []) {
    if (isObj(c) && isObj(c.function))
      out.toolCalls.push({
        id: String(c.id ?? ''),
        name: String(c.function.name),
        arguments: String(c.function.arguments),
      });
  }
  out.usage = usageOf(body.usage);
}

/**
 * Folds SSE chunks the way a client would, but also checks the SPEC promise that the chunk carrying
 * `finish_reason: tool_calls` holds the complete calls: tool calls are read from that chunk only.
 */
function fromStream(out: NeutralOutcome, sse: string): void {
  let text = '';
  let sawText = false;
  for (const block of sse.split('\n\n')) {
    const line = block.split('\n').find((l) => l.startsWith('data:'));
    if (!line) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') continue;
    const chunk: unknown = JSON.parse(data);
    if (!isObj(chunk)) continue;
    if (isObj(chunk.error)) {
      out.error = errorOf(chunk);
      out.streamError = true;
      continue;
    }
    if (chunk.usage) out.usage = usageOf(chunk.usage);
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isObj(choice)) continue;
    const delta = isObj(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string') {
      text += delta.content;
      sawText = true;
    }
    if (typeof choice.finish_reason === 'string') {
      out.finishReason = choice.finish_reason;
      if (choice.finish_reason === 'tool_calls')
        for (const c of Array.isArray(delta.tool_calls) ? delta.tool_calls : [])
          if (isObj(c) && isObj(c.function))
            out.toolCalls.push({
              id: String(c.id ?? ''),
              name: String(c.function.name),
              arguments: String(c.function.arguments),
            });
    }
  }
  out.text = sawText ? text : null;
}

/**
 * A real disconnect: node:http destroys the socket. (fetch's abort can leave the connection to the
 * gateway open, which is not what a client going away looks like.)
 */
function sendAndDisconnect(env: ProxyEnv, body: Obj, afterMs: number): Promise<NeutralOutcome> {
  const u = new URL(`${env.gw.url}/alpha/v1/chat/completions`);
  return new Promise((resolve) => {
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify(body));
    setTimeout(() => {
      req.destroy();
      resolve({ ...emptyOutcome(0, new Headers()), aborted: true });
    }, afterMs);
  });
}

async function send(env: ProxyEnv, c: ConformanceCase, call: DriverCall): Promise<NeutralOutcome> {
  if (call.abortAfterMs !== undefined)
    return sendAndDisconnect(env, alphaBody(c.request, call.model, call.stream), call.abortAfterMs);
  const ac = new AbortController();
  const headers: Record<string, string> = {
    authorization: `Bearer ${env.gw.adminKey}`,
    'content-type': 'application/json',
  };
  if (call.providerKey) headers['x-svc-provider-key'] = call.providerKey;
  const timer = call.abortAfterMs === undefined ? undefined : setTimeout(() => ac.abort(), call.abortAfterMs);
  try {
    const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify(alphaBody(c.request, call.model, call.stream)),
      signal: ac.signal,
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

export const alphaDriver: FamilyDriver = { family: 'alpha', send };
