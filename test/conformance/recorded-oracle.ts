// What a recording says, read the way its vendor documents it and put in neutral terms: the test's
// expected answer. It is deliberately plain (whole-body reads, no incremental state) and shares no
// code with the gateway's decoders, so a decoder bug cannot hide by being repeated here.
//
// Neutral terms follow SPEC.md and wire-formats.md: finish `stop` / `tool_calls` / `length`; input
// tokens without cache reads; Gemini output tokens include thoughts; a Gemini signature counts only
// where the gateway must echo it (on thought parts and function calls, not on plain text parts).
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { Recording } from './recorded-wire.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface SaidToolCall {
  /** Absent where the vendor gives none (Gemini): the gateway then makes one up. */
  id?: string;
  name: string;
  input: unknown;
}

export interface Said {
  text: string;
  thinking: string;
  signatures: string[];
  toolCalls: SaidToolCall[];
  finish: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage: { input: number; output: number };
}

function blank(): Said {
  return { text: '', thinking: '', signatures: [], toolCalls: [], finish: 'stop', usage: { input: 0, output: 0 } };
}

/** `data:` payloads (with their `event:` names) of an SSE body; CRLF or LF line ends. */
export function sseRecords(text: string): Array<{ event: string; data: string }> {
  const out: Array<{ event: string; data: string }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = '';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) out.push({ event, data: data.join('\n') });
  }
  return out;
}

const ANTHROPIC_FINISH: Record<string, Said['finish']> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
};

function anthropicBlocks(said: Said, content: unknown[]): void {
  for (const b of content.filter(isObj)) {
    if (b.type === 'text') said.text += str(b.text);
    if (b.type === 'thinking') {
      said.thinking += str(b.thinking);
      if (str(b.signature)) said.signatures.push(str(b.signature));
    }
    if (b.type === 'tool_use') said.toolCalls.push({ id: str(b.id), name: str(b.name), input: b.input });
  }
}

function anthropic(rec: Recording): Said {
  const said = blank();
  if (!rec.stream) {
    const body = obj(JSON.parse(rec.bytes.toString('utf8')));
    anthropicBlocks(said, arr(body.content));
    said.finish = ANTHROPIC_FINISH[str(body.stop_reason)] ?? 'stop';
    said.usage = { input: num(obj(body.usage).input_tokens), output: num(obj(body.usage).output_tokens) };
    return said;
  }
  const blocks: Obj[] = [];
  const json: string[] = [];
  for (const r of sseRecords(rec.bytes.toString('utf8'))) {
    const d = obj(JSON.parse(r.data));
    if (d.type === 'message_start') said.usage.input = num(obj(obj(d.message).usage).input_tokens);
    if (d.type === 'content_block_start') {
      blocks[num(d.index)] = { ...obj(d.content_block) };
      json[num(d.index)] = '';
    }
    const delta = obj(d.delta);
    const b = blocks[num(d.index)];
    if (d.type === 'content_block_delta' && b) {
      if (delta.type === 'text_delta') b.text = str(b.text) + str(delta.text);
      if (delta.type === 'thinking_delta') b.thinking = str(b.thinking) + str(delta.thinking);
      if (delta.type === 'signature_delta') b.signature = str(b.signature) + str(delta.signature);
      if (delta.type === 'input_json_delta') json[num(d.index)] += str(delta.partial_json);
    }
    if (d.type === 'message_delta') {
      said.finish = ANTHROPIC_FINISH[str(delta.stop_reason)] ?? 'stop';
      said.usage.output = num(obj(d.usage).output_tokens);
    }
  }
  blocks.forEach((b, i) => {
    if (b.type === 'tool_use') b.input = json[i] ? JSON.parse(json[i]) : {};
  });
  anthropicBlocks(said, blocks);
  return said;
}

function openai(rec: Recording): Said {
  const said = blank();
  const finish = (f: unknown) => (f === 'tool_calls' ? 'tool_calls' : f === 'length' ? 'length' : 'stop');
  const usage = (u: Obj) => ({ input: num(u.prompt_tokens), output: num(u.completion_tokens) });
  if (!rec.stream) {
    const body = obj(JSON.parse(rec.bytes.toString('utf8')));
    const choice = obj(arr(body.choices)[0]);
    const msg = obj(choice.message);
    said.text = str(msg.content);
    for (const c of arr(msg.tool_calls).map(obj))
      said.toolCalls.push({
        id: str(c.id),
        name: str(obj(c.function).name),
        input: JSON.parse(str(obj(c.function).arguments)),
      });
    said.finish = finish(choice.finish_reason);
    said.usage = usage(obj(body.usage));
    return said;
  }
  const calls: Array<{ id: string; name: string; args: string }> = [];
  for (const r of sseRecords(rec.bytes.toString('utf8'))) {
    if (r.data === '[DONE]') continue;
    const chunk = obj(JSON.parse(r.data));
    if (isObj(chunk.usage)) said.usage = usage(chunk.usage);
    const choice = obj(arr(chunk.choices)[0]);
    const delta = obj(choice.delta);
    said.text += str(delta.content);
    for (const c of arr(delta.tool_calls).map(obj)) {
      const i = num(c.index);
      calls[i] ??= { id: '', name: '', args: '' };
      calls[i].id += str(c.id);
      calls[i].name += str(obj(c.function).name);
      calls[i].args += str(obj(c.function).arguments);
    }
    if (choice.finish_reason) said.finish = finish(choice.finish_reason);
  }
  said.toolCalls = calls.map((c) => ({ id: c.id, name: c.name, input: JSON.parse(c.args) }));
  return said;
}

function gemini(rec: Recording): Said {
  const said = blank();
  const chunks = rec.stream
    ? sseRecords(rec.bytes.toString('utf8')).map((r) => obj(JSON.parse(r.data)))
    : [obj(JSON.parse(rec.bytes.toString('utf8')))];
  let reason = '';
  for (const chunk of chunks) {
    const candidate = obj(arr(chunk.candidates)[0]);
    for (const part of arr(obj(candidate.content).parts).map(obj)) {
      const signature = str(part.thoughtSignature);
      if (part.thought === true) said.thinking += str(part.text);
      else if (isObj(part.functionCall))
        said.toolCalls.push({ name: str(part.functionCall.name), input: part.functionCall.args ?? {} });
      else said.text += str(part.text);
      if (signature && (part.thought === true || isObj(part.functionCall))) said.signatures.push(signature);
    }
    if (candidate.finishReason) reason = str(candidate.finishReason);
    // Every chunk repeats the running totals; the last one holds the final count.
    if (isObj(chunk.usageMetadata)) {
      const u = chunk.usageMetadata;
      said.usage = {
        input: num(u.promptTokenCount) - num(u.cachedContentTokenCount),
        output: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount),
      };
    }
  }
  // Gemini has no tool-call reason: STOP after function calls means the model wants them run.
  said.finish = reason === 'MAX_TOKENS' ? 'length' : said.toolCalls.length > 0 ? 'tool_calls' : 'stop';
  return said;
}

const CONVERSE_FINISH: Record<string, Said['finish']> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  content_filtered: 'content_filter',
  guardrail_intervened: 'content_filter',
};

/** The JSON payload of each frame of an application/vnd.amazon.eventstream body, with its event type. */
export function eventstreamFrames(bytes: Buffer): Array<{ event: string; data: Obj }> {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const out: Array<{ event: string; data: Obj }> = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const message = codec.decode(bytes.subarray(at, at + length));
    out.push({
      event: String(message.headers[':event-type']?.value ?? ''),
      data: obj(JSON.parse(toUtf8(message.body))),
    });
    at += length;
  }
  return out;
}

function bedrock(rec: Recording): Said {
  const said = blank();
  const usage = (u: Obj) => ({ input: num(u.inputTokens) - num(u.cacheReadInputTokens), output: num(u.outputTokens) });
  if (!rec.stream) {
    const body = obj(JSON.parse(rec.bytes.toString('utf8')));
    for (const b of arr(obj(obj(body.output).message).content).map(obj)) {
      said.text += str(b.text);
      const reasoning = obj(obj(b.reasoningContent).reasoningText);
      said.thinking += str(reasoning.text);
      if (str(reasoning.signature)) said.signatures.push(str(reasoning.signature));
      if (isObj(b.toolUse))
        said.toolCalls.push({ id: str(b.toolUse.toolUseId), name: str(b.toolUse.name), input: b.toolUse.input });
    }
    said.finish = CONVERSE_FINISH[str(body.stopReason)] ?? 'stop';
    said.usage = usage(obj(body.usage));
    return said;
  }
  const tools = new Map<number, { id: string; name: string; args: string }>();
  let signature = '';
  for (const { event, data } of eventstreamFrames(rec.bytes)) {
    const i = num(data.contentBlockIndex);
    const toolStart = obj(obj(data.start).toolUse);
    if (event === 'contentBlockStart' && toolStart.name)
      tools.set(i, { id: str(toolStart.toolUseId), name: str(toolStart.name), args: '' });
    const delta = obj(data.delta);
    if (event === 'contentBlockDelta') {
      said.text += str(delta.text);
      said.thinking += str(obj(delta.reasoningContent).text);
      signature += str(obj(delta.reasoningContent).signature);
      const tool = tools.get(i);
      if (tool) tool.args += str(obj(delta.toolUse).input);
    }
    if (event === 'contentBlockStop' && signature) {
      said.signatures.push(signature);
      signature = '';
    }
    if (event === 'messageStop') said.finish = CONVERSE_FINISH[str(data.stopReason)] ?? 'stop';
    if (event === 'metadata') said.usage = usage(obj(data.usage));
  }
  said.toolCalls = [...tools.values()].map((t) => ({
    id: t.id,
    name: t.name,
    input: t.args ? JSON.parse(t.args) : {},
  }));
  return said;
}

export function whatTheVendorSaid(rec: Recording): Said {
  switch (rec.vendor) {
    case 'anthropic':
      return anthropic(rec);
    case 'openai':
      return openai(rec);
    case 'google':
      return gemini(rec);
    case 'bedrock':
      return bedrock(rec);
  }
}
