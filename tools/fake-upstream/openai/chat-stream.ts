// Chat Completions SSE: the ordered `data:` payloads for an answer (pure), and the writer that sends them.
import type { FakeContext } from '../context.ts';
import { chunkText, sleep } from '../script.ts';
import type { ChatAnswer } from './chat-build.ts';
import type { Json } from './util.ts';

export interface StreamOptions {
  includeUsage: boolean;
  /** Azure sends a first chunk with `choices: []` and `prompt_filter_results`. */
  promptFilter?: boolean;
  /**
   * OpenAI itself pads every chunk with an `obfuscation` string (so chunk sizes do not give away
   * token lengths) unless `stream_options.include_obfuscation` is false; clients must ignore it.
   */
  obfuscation?: boolean;
}

const PAD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Padding of varying length (1-16), deterministic per chunk so answers stay reproducible. */
function padding(n: number): string {
  return PAD.slice(n % 7, (n % 7) + 1 + ((n * 5) % 16));
}

/** JSON payloads in order; the last is `[DONE]`, except for `midstream-error` which ends on an error record. */
export function chatStreamPayloads(a: ChatAnswer, opts: StreamOptions): Array<Json | '[DONE]'> {
  const out: Array<Json | '[DONE]'> = [];
  const usageField = opts.includeUsage ? { usage: null } : {};
  const chunk = (choices: Json[]): Json => ({
    id: a.id,
    object: 'chat.completion.chunk',
    created: a.created,
    model: a.model,
    service_tier: 'default',
    system_fingerprint: 'fp_fake0001',
    choices,
    ...usageField,
  });
  const each = (delta: (i: number) => Json, finish: string | null = null): Json => {
    const choices: Json[] = [];
    for (let i = 0; i < a.n; i++) choices.push({ index: i, delta: delta(i), logprobs: null, finish_reason: finish });
    return chunk(choices);
  };
  if (opts.promptFilter)
    out.push({
      id: '',
      object: '',
      created: 0,
      model: '',
      choices: [],
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: noFilter() }],
    });
  if (a.toolCalls.length > 0) {
    a.toolCalls.forEach((c, k) => {
      const head = { index: k, id: c.id, type: 'function', function: { name: c.name, arguments: '' } };
      out.push(
        each(() =>
          k === 0 ? { role: 'assistant', content: null, tool_calls: [head], refusal: null } : { tool_calls: [head] },
        ),
      );
      for (const piece of chunkText(c.arguments, 3))
        out.push(each(() => ({ tool_calls: [{ index: k, function: { arguments: piece } }] })));
    });
  } else {
    out.push(each(() => ({ role: 'assistant', content: '', refusal: null })));
    const pieces = a.script.chunks ?? (a.script.long ? 24 : 5);
    for (const piece of chunkText(a.text ?? '', pieces)) out.push(each(() => ({ content: piece })));
  }
  if (a.script.midstreamError) {
    // the SDK throws on a `data:` record carrying an `error` key; no finish chunk, no usage, no [DONE]
    out.length = Math.min(out.length, 3);
    out.push({
      error: {
        message: 'The server had an error while streaming (scripted midstream-error).',
        type: 'server_error',
        param: null,
        code: null,
      },
    });
    return out;
  }
  out.push(each(() => ({}), a.finishReason));
  if (opts.includeUsage)
    out.push({
      ...chunk([]),
      usage: {
        ...a.usage,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    });
  out.push('[DONE]');
  return opts.obfuscation ? out.map((p, i) => (p === '[DONE]' ? p : { ...p, obfuscation: padding(i) })) : out;
}

function noFilter(): Json {
  const safe = { filtered: false, severity: 'safe' };
  return { hate: safe, self_harm: safe, sexual: safe, violence: safe };
}

/** Writes the payloads; `long` and `pace-<n>` streams pause between chunks so clients see them arrive apart. */
export async function writeChatStream(
  ctx: FakeContext,
  a: ChatAnswer,
  opts: StreamOptions,
  headers: Record<string, string>,
) {
  const sse = ctx.sse(headers);
  const payloads = chatStreamPayloads(a, opts);
  const gapMs = a.script.paceMs ?? (a.script.long ? 2 : 0);
  // The role chunk and the first content delta, then the connection drops.
  const cut = a.script.midstreamCut || a.script.midstreamStall ? Math.min(2, payloads.length) : payloads.length;
  for (const p of payloads.slice(0, cut)) {
    if (sse.closed) return;
    sse.event(p);
    if (gapMs > 0) await sleep(gapMs);
  }
  if (a.script.midstreamStall) {
    // Silent until the client gives up (at most a minute, so a test run never hangs on it).
    for (let waited = 0; waited < 60_000 && !sse.closed; waited += 50) await sleep(50);
    sse.end();
    return;
  }
  if (a.script.midstreamCut) {
    await sleep(20);
    sse.destroy();
    return;
  }
  sse.end();
}
