// Round trip over generated conversations: alpha body -> IR -> messages-wire body -> IR -> chat wire
// body, compared with the original on everything both wires can express. A seeded generator keeps
// failures reproducible: the failing seed is in the assertion message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAlphaChat } from '../../src/families/alpha/codec/decode-request.ts';
import { decodeBetaMessages } from '../../src/families/beta/codec/decode-request.ts';
import { toAnthropicBody } from '../../src/providers/anthropic/encode-request.ts';
import { toOpenAIChatBody } from '../../src/providers/openai-compatible/encode-request.ts';
import { seededRandom } from '../helpers/random.ts';

type Obj = Record<string, unknown>;
type Rand = () => number;

const WORDS = ['alpha', 'weather', 'Paris', 'ünïcode', 'emoji 🌦', 'quote "q"', 'new\nline', 'tab\tx', '{json}'];
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)];
const text = (r: Rand) => Array.from({ length: 1 + int(r, 4) }, () => pick(r, WORDS)).join(' ');

function image(r: Rand): Obj {
  const url =
    r() < 0.5
      ? `data:image/png;base64,${Buffer.from(text(r)).toString('base64')}`
      : `https://img.test/${int(r, 1000)}.jpg`;
  return { type: 'image_url', image_url: r() < 0.3 ? { url, detail: 'low' } : { url } };
}

function userMessage(r: Rand): Obj {
  if (r() < 0.4) return { role: 'user', content: text(r) };
  const parts = Array.from({ length: 1 + int(r, 3) }, () => (r() < 0.6 ? { type: 'text', text: text(r) } : image(r)));
  return { role: 'user', content: parts };
}

const TOOL_NAMES = ['get_weather', 'get_time', 'search'];

function toolTurn(r: Rand, turn: number): Obj[] {
  const calls = Array.from({ length: 1 + int(r, 3) }, (_, i) => ({
    id: `call_${turn}x${i}${int(r, 1e6)}`,
    type: 'function',
    function: { name: pick(r, TOOL_NAMES), arguments: JSON.stringify({ q: text(r), n: int(r, 9), ok: r() < 0.5 }) },
  }));
  const content = r() < 0.3 ? text(r) : r() < 0.5 ? '' : null;
  const out: Obj[] = [{ role: 'assistant', content, tool_calls: calls }];
  for (const c of calls) {
    const reply =
      r() < 0.6
        ? text(r)
        : [{ type: 'text', text: text(r) }, ...(r() < 0.5 ? [image(r)] : []), { type: 'text', text: text(r) }];
    out.push({ role: 'tool', tool_call_id: c.id, content: reply });
  }
  return out;
}

function generate(seed: number): Obj {
  const r = seededRandom(seed);
  const useTools = r() < 0.6;
  const messages: Obj[] = [];
  if (r() < 0.6) messages.push({ role: r() < 0.5 ? 'system' : 'developer', content: text(r) });
  const turns = 1 + int(r, 4);
  for (let t = 0; t < turns; t++) {
    const afterTools = messages.at(-1)?.role === 'tool';
    if (!afterTools || r() < 0.5) messages.push(userMessage(r));
    if (useTools && r() < 0.6) messages.push(...toolTurn(r, t));
    else if (t < turns - 1 || r() < 0.3) {
      messages.push({ role: 'assistant', content: r() < 0.7 ? text(r) : [{ type: 'text', text: text(r) }] });
    }
  }
  const body: Obj = { model: 'gpt-4o', messages };
  body[r() < 0.5 ? 'max_tokens' : 'max_completion_tokens'] = 1 + int(r, 4000);
  if (r() < 0.5) body.temperature = Math.round(r() * 100) / 100;
  if (r() < 0.3) body.top_p = Math.round(r() * 100) / 100;
  if (r() < 0.3) body.stop = r() < 0.5 ? 'STOP' : ['END', 'DONE'];
  if (r() < 0.3) body.user = `user-${int(r, 100)}`;
  if (r() < 0.3) body.stream = true;
  if (useTools) {
    body.tools = TOOL_NAMES.map((name) => {
      const fn: Obj = { name };
      if (r() < 0.7) fn.description = text(r);
      if (r() < 0.8) fn.parameters = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
      if (r() < 0.3) fn.strict = true;
      return { type: 'function', function: fn };
    });
    if (r() < 0.6)
      body.tool_choice = pick(r, ['auto', 'none', 'required', { type: 'function', function: { name: 'search' } }]);
    if (r() < 0.3) body.parallel_tool_calls = false;
  }
  return body;
}

/** Alpha bodies reduced to what both wires carry, spelled one way. */
function normalize(body: Obj): Obj {
  const system: string[] = [];
  const messages: Obj[] = [];
  for (const m of body.messages as Obj[]) {
    if (m.role === 'system' || m.role === 'developer') {
      if (typeof m.content === 'string') system.push(m.content);
      else for (const p of m.content as Obj[]) system.push(p.text as string);
      continue;
    }
    if (m.role === 'tool') {
      const c = m.content;
      const joined =
        typeof c === 'string'
          ? c
          : (c as Obj[])
              .filter((p) => p.type === 'text')
              .map((p) => p.text)
              .join('\n');
      messages.push({ role: 'tool', tool_call_id: m.tool_call_id, content: joined });
    } else if (m.role === 'assistant') {
      const c = m.content;
      const joined = typeof c === 'string' || c === null ? c : (c as Obj[]).map((p) => p.text).join('\n');
      const calls = (m.tool_calls as Obj[] | undefined)?.map((tc) => {
        const fn = tc.function as Obj;
        return { id: tc.id, name: fn.name, args: JSON.parse(fn.arguments as string) };
      });
      messages.push({ role: 'assistant', content: calls && joined === '' ? null : joined, calls: calls ?? [] });
    } else {
      const c = m.content;
      const parts = typeof c === 'string' ? [{ type: 'text', text: c }] : (c as Obj[]);
      const norm = parts.map((p) =>
        p.type === 'text' ? { text: p.text } : { image: ((p.image_url as Obj).url as string) ?? '' },
      );
      messages.push({ role: 'user', parts: norm });
    }
  }
  const tools = (body.tools as Obj[] | undefined)?.map((t) => {
    const fn = t.function as Obj;
    return {
      name: fn.name,
      description: fn.description,
      parameters: fn.parameters ?? { type: 'object', properties: {} },
    };
  });
  const hasTools = tools !== undefined && tools.length > 0;
  const toolChoice = hasTools ? (body.tool_choice ?? 'auto') : undefined;
  return {
    system,
    messages,
    tools: tools ?? [],
    tool_choice: toolChoice,
    // Only `false` is a statement (true is the default), and it is moot when no tool may be called.
    parallel_tool_calls: hasTools && toolChoice !== 'none' && body.parallel_tool_calls === false ? false : undefined,
    max_tokens: body.max_completion_tokens ?? body.max_tokens,
    temperature: body.temperature,
    top_p: body.top_p,
    stop: typeof body.stop === 'string' ? [body.stop] : body.stop,
    user: body.user,
    stream: body.stream === true,
  };
}

function roundTrip(alpha: Obj): Obj {
  const first = decodeAlphaChat(alpha).ir;
  const anthropicBody = JSON.parse(JSON.stringify(toAnthropicBody(first).body));
  const second = decodeBetaMessages(anthropicBody).ir;
  return JSON.parse(JSON.stringify(toOpenAIChatBody(second).body));
}

describe('alpha -> IR -> beta wire -> IR -> alpha wire round trip', () => {
  it('preserves every field both wires express over 200 generated conversations', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const alpha = generate(seed);
      let back: Obj;
      try {
        back = roundTrip(alpha);
      } catch (err) {
        assert.fail(`seed ${seed}: ${(err as Error).message}\n${JSON.stringify(alpha)}`);
      }
      assert.deepEqual(normalize(back), normalize(alpha), `seed ${seed}: ${JSON.stringify(alpha)}`);
    }
  });
});
