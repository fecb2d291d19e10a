// Judge calls for ensemble (pick the best answer) and cascade (score one answer). A judge is an
// ordinary non-streamed chat attempt with a short prompt; its failure never fails the caller's call.
import { alphaCodec } from '../families/alpha/codec.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { ChatRequest } from '../ir/types.ts';
import { parsePick, parseScore } from '../routing/acceptance.ts';
import type { ChatCall, RoutedTarget } from './call.ts';
import { attemptChat } from './chat-attempt.ts';

function lastUserText(ir: ChatRequest): string {
  for (let i = ir.messages.length - 1; i >= 0; i--) {
    const m = ir.messages[i];
    if (m.role !== 'user') continue;
    const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    if (text) return text;
  }
  return '';
}

async function ask(
  target: RoutedTarget,
  prompt: string,
  requestId: string,
  signal: CallSignal,
): Promise<string | undefined> {
  const ir: ChatRequest = {
    model: target.model,
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    tools: [],
    params: { maxTokens: 16, temperature: 0 },
    stream: false,
  };
  const call: ChatCall = {
    codec: alphaCodec,
    ir,
    body: { model: target.model, messages: [{ role: 'user', content: prompt }], max_tokens: 16, temperature: 0 },
    requestId,
    created: Math.floor(Date.now() / 1000),
    includeUsage: false,
  };
  try {
    const out = await attemptChat(call, target, signal);
    return out.ok && out.kind === 'json' ? out.text : undefined;
  } catch {
    return undefined;
  }
}

export async function judgePick(
  target: RoutedTarget,
  question: ChatRequest,
  answers: string[],
  requestId: string,
  signal: CallSignal,
): Promise<number | undefined> {
  const listed = answers.map((a, i) => `Answer ${i + 1}:\n${a}`).join('\n\n');
  const prompt = `Question:\n${lastUserText(question)}\n\n${listed}\n\nWhich answer is best? Reply with its number only.`;
  const text = await ask(target, prompt, requestId, signal);
  return text === undefined ? undefined : parsePick(text, answers.length);
}

export async function judgeScore(
  target: RoutedTarget,
  question: ChatRequest,
  answer: string,
  requestId: string,
  signal: CallSignal,
): Promise<number | undefined> {
  const prompt = `Question:\n${lastUserText(question)}\n\nAnswer:\n${answer}\n\nRate the answer from 0 (useless) to 10 (excellent). Reply with the number only.`;
  const text = await ask(target, prompt, requestId, signal);
  return text === undefined ? undefined : parseScore(text);
}
