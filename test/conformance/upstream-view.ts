// A vendor-neutral view of the request body the fake upstream recorded, so cases can assert what reached
// the vendor (system text, message count, images, tool results) whatever its wire format.
import type { RecordedRequest } from '../../tools/fake-upstream/context.ts';
import type { ConformanceVendor } from './cases.ts';

export interface UpstreamView {
  system: string | null;
  messages: number;
  images: number;
  toolResults: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  return arr(v)
    .map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

function countParts(messages: unknown[], field: string, pred: (p: Obj) => boolean): number {
  let n = 0;
  for (const m of messages) if (isObj(m)) for (const p of arr(m[field])) if (isObj(p) && pred(p)) n++;
  return n;
}

function openaiView(b: Obj): UpstreamView {
  const msgs = arr(b.messages).filter(isObj);
  const sys = msgs.filter((m) => m.role === 'system' || m.role === 'developer');
  return {
    system: sys.length ? sys.map((m) => textOf(m.content)).join('\n') : null,
    messages: msgs.length - sys.length,
    images: countParts(msgs, 'content', (p) => p.type === 'image_url'),
    toolResults: msgs.filter((m) => m.role === 'tool').length,
  };
}

function anthropicView(b: Obj): UpstreamView {
  const msgs = arr(b.messages);
  return {
    system: b.system === undefined ? null : textOf(b.system),
    messages: msgs.length,
    images: countParts(msgs, 'content', (p) => p.type === 'image'),
    toolResults: countParts(msgs, 'content', (p) => p.type === 'tool_result'),
  };
}

function geminiView(b: Obj): UpstreamView {
  const contents = arr(b.contents);
  const sys = isObj(b.systemInstruction) ? textOf(b.systemInstruction.parts) : null;
  return {
    system: sys,
    messages: contents.length,
    images: countParts(contents, 'parts', (p) => 'inlineData' in p || 'fileData' in p),
    toolResults: countParts(contents, 'parts', (p) => 'functionResponse' in p),
  };
}

function converseView(b: Obj): UpstreamView {
  const msgs = arr(b.messages);
  return {
    system: b.system === undefined ? null : textOf(b.system),
    messages: msgs.length,
    images: countParts(msgs, 'content', (p) => 'image' in p),
    toolResults: countParts(msgs, 'content', (p) => 'toolResult' in p),
  };
}

export function upstreamView(vendor: ConformanceVendor, body: unknown): UpstreamView {
  if (!isObj(body)) throw new Error(`upstream body is not JSON: ${String(body)}`);
  switch (vendor) {
    case 'anthropic':
    case 'bedrock-anthropic':
      return anthropicView(body);
    case 'google':
      return geminiView(body);
    case 'bedrock':
      return converseView(body);
    default:
      return openaiView(body);
  }
}

/** The generation call among the recorded requests (the last POST with a JSON body). */
export function lastGeneration(requests: RecordedRequest[]): RecordedRequest | undefined {
  for (let i = requests.length - 1; i >= 0; i--) {
    const r = requests[i];
    if (r.method === 'POST' && isObj(r.body) && !r.path.includes('count')) return r;
  }
  return undefined;
}
