// Builds the deterministic GenerateContentResponse (candidates, parts, usageMetadata).
import { signThinking, thinkingText } from '../anthropic/thinking.ts';
import { isObj, isStr, randomId, toolInput } from '../anthropic/util.ts';
import { countTokens, replyText, type Script } from '../script.ts';
import type { GenerateRequest, GPart } from './validate.ts';

/** Images and other media parts count as a fixed amount (Gemini bills an image as 258 tokens). */
const MEDIA_TOKENS = 258;

export type FinishReason = 'STOP' | 'MAX_TOKENS';

export interface GeminiAnswer {
  parts: GPart[];
  finishReason: FinishReason;
  promptTokens: number;
  /** Candidate tokens excluding thoughts, as the API reports them. */
  candidateTokens: number;
  thoughtTokens: number;
}

function responseText(response: unknown): string {
  if (isObj(response)) {
    for (const k of ['content', 'result', 'output']) if (isStr(response[k])) return response[k] as string;
  }
  return JSON.stringify(response);
}

function partTokens(p: GPart): number {
  if (isStr(p.text)) return countTokens(p.text);
  if (isObj(p.functionCall))
    return countTokens(`${String(p.functionCall.name)} ${JSON.stringify(p.functionCall.args ?? {})}`);
  if (isObj(p.functionResponse)) return countTokens(responseText(p.functionResponse.response));
  return MEDIA_TOKENS;
}

export function promptTokens(req: Pick<GenerateRequest, 'contents' | 'system' | 'functions'>): number {
  let n = 0;
  for (const p of req.system) n += partTokens(p);
  for (const f of req.functions) n += countTokens(JSON.stringify(f));
  for (const c of req.contents) for (const p of c.parts) n += partTokens(p);
  return n;
}

/** Last user turn's text; a turn of function responses answers with their content. */
export function lastUserText(req: GenerateRequest): string {
  for (let i = req.contents.length - 1; i >= 0; i--) {
    const c = req.contents[i];
    if (c.role !== 'user') continue;
    const texts = c.parts.filter((p) => isStr(p.text) && p.thought !== true).map((p) => String(p.text));
    if (texts.length) return texts.join('\n');
    return c.parts
      .filter((p) => isObj(p.functionResponse))
      .map((p) => responseText((p.functionResponse as { response: unknown }).response))
      .join('\n');
  }
  return '';
}

function answersFunctions(req: GenerateRequest): boolean {
  const last = req.contents[req.contents.length - 1];
  return last.role === 'user' && last.parts.some((p) => isObj(p.functionResponse));
}

function cutAtStop(text: string, stops: string[]): string {
  let at = text.length;
  for (const s of stops) {
    const i = s ? text.indexOf(s) : -1;
    if (i !== -1 && i < at) at = i;
  }
  return text.slice(0, at);
}

export function buildAnswer(req: GenerateRequest, script: Script): GeminiAnswer {
  const userText = lastUserText(req);
  const parts: GPart[] = [];
  let thoughtTokens = 0;
  const thinking = script.thinking || req.includeThoughts;
  if (thinking) {
    const t = thinkingText(userText);
    thoughtTokens = countTokens(t);
    if (req.includeThoughts || script.thinking) parts.push({ text: t, thought: true });
  }
  let candidateTokens = 0;
  let finishReason: FinishReason = 'STOP';
  const calls =
    script.toolCalls > 0 && !req.callsDisabled && !answersFunctions(req)
      ? req.functions.slice(0, script.toolCalls)
      : [];
  if (calls.length) {
    for (const f of calls) {
      const args = toolInput(f.schema, userText);
      candidateTokens += countTokens(JSON.stringify(args));
      const call: GPart = { functionCall: { name: f.name, args } };
      if (thinking) call.thoughtSignature = signThinking(`${f.name}:${userText}`);
      parts.push(call);
    }
  } else {
    let text = cutAtStop(replyText(req.json ? { ...script, json: true } : script, userText), req.stopSequences);
    const room =
      req.maxOutputTokens === undefined ? Number.MAX_SAFE_INTEGER : Math.max(0, req.maxOutputTokens - thoughtTokens);
    if (countTokens(text) > room) {
      text = text.slice(0, room * 4);
      finishReason = 'MAX_TOKENS';
    }
    parts.push({ text });
    candidateTokens += countTokens(text);
  }
  return { parts, finishReason, promptTokens: promptTokens(req), candidateTokens, thoughtTokens };
}

export function usageMetadata(a: Pick<GeminiAnswer, 'promptTokens' | 'thoughtTokens'>, candidateTokens: number) {
  return {
    promptTokenCount: a.promptTokens,
    candidatesTokenCount: candidateTokens,
    totalTokenCount: a.promptTokens + candidateTokens + a.thoughtTokens,
    ...(a.thoughtTokens ? { thoughtsTokenCount: a.thoughtTokens } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: a.promptTokens }],
  };
}

export function responseJson(a: GeminiAnswer, model: string, responseId = randomId('', 20)) {
  return {
    candidates: [{ content: { parts: a.parts, role: 'model' }, finishReason: a.finishReason, index: 0 }],
    usageMetadata: usageMetadata(a, a.candidateTokens),
    modelVersion: model,
    responseId,
  };
}
